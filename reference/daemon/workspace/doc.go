// Package workspace is the Runtime side of workspace_read, workspace_write and workspace_export
// (protocol-facts §4.13–§4.15) as one per-connection wire machine.
//
// The Machine decides every answer: it decodes and checks the request frames, applies the bounds,
// the target checks and the mutual exclusion between reads, the one write and the one export, and
// returns the effects the daemon carries out (frames to send, native reads to start). It reads no
// clock (every call carries the instant) and starts no goroutine. It reaches the workspace only
// through FS, a small file-system interface that never follows a symlink; Fake implements it in
// memory for tests and Dir on a real directory.
//
// Native behaviour the protocol leaves to the Runtime, fixed here:
//   - a byte read needs a regular file reached without a symlink: a missing path, a directory, a
//     symlink or a special file is not_found; a listing needs a directory reached without a
//     symlink: anything else, missing included, is not_directory (§4.13);
//   - a read whose native result is not one of the mapped errors, or that outlives its 12 s budget,
//     is unknown/read_unconfirmed, and the owner (handle or Run) takes no further read;
//   - a write keeps its body in memory until commit (at most 50 MiB, one write per connection), so
//     an incomplete or expired transfer never reaches the installer; the installer creates missing
//     parent directories and replaces the destination by rename, so a reader sees the old file or
//     the new one; a destination that is a directory is write_rejected/destination_directory, one
//     under a symlink or a non-directory is write_rejected/unsafe_destination, and any other
//     installer error is unknown/write_unconfirmed: the write then keeps the Environment for the rest
//     of the connection;
//   - an export is a tar stream of the whole workspace (regular files and directories, in name order,
//     symlinks and special files left out, nothing followed), produced as Core pulls it.
package workspace
