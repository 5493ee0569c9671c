package script

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// PullExport plays an export_pull step as Core (scenarios.ExportPull): it reads the chunk at
// offset 0 that answers the begin, answers every chunk with next at the bytes received so far and
// reads what comes at that offset, a chunk or completed, then matches the archive, the chunks'
// data concatenated, against the step's template. Each read is a frame step of its own, with the
// step's bound and position; a failure names the offset it was at.
func (p *Player) PullExport(ctx context.Context, st *scenarios.Step) (*scenarios.Failure, error) {
	var archive []byte
	for {
		frames, f := p.Expect(ctx, st.Export.Awaited(st, len(archive)))
		if f != nil {
			f.Message = fmt.Sprintf("pulling the export at offset %d: %s", len(archive), f.Message)
			return f, nil
		}
		res := frames[0].Payload.(*proto.WorkspaceExportResultPayload)
		if res.Outcome == proto.OutcomeCompleted {
			break
		}
		archive = append(archive, res.Data...)
		if len(archive) > proto.WorkspaceExportMaxBytes {
			return p.Failf(st, "the export's chunks passed its %d-byte bound (at %d bytes) without completed", proto.WorkspaceExportMaxBytes, len(archive)), nil
		}
		if f, err := p.Send(ctx, st.Export.Next(st, len(archive))); f != nil || err != nil {
			return f, err
		}
	}
	p.Rec.Event("export", fmt.Sprintf("step %d: the export's archive is %d bytes", st.Index, len(archive)))
	if st.Export.Archive == nil {
		return nil, nil
	}
	got := base64.StdEncoding.EncodeToString(archive)
	if mm := p.B.Match(map[string]scenarios.Value{"archive": st.Export.Archive}, map[string]any{"archive": got}); mm != nil {
		f := p.Failf(st, "the export's archive (%d bytes) differs: %s", len(archive), mm)
		f.Expected = p.B.Expected(st.Export.Archive)
		return f, nil
	}
	return nil, nil
}

// ServeExport plays an export_pull step as the Runtime (the self-check's scripted Runtime): it
// sends the archive the step's template renders to, in chunks of seeded sizes (1 byte to 64 KiB,
// any of which the spec allows), expects next at the bytes delivered after each, then sends
// completed at the archive's size.
func (p *Player) ServeExport(ctx context.Context, st *scenarios.Step) (*scenarios.Failure, error) {
	archive, err := p.exportArchive(st)
	if err != nil {
		return nil, fmt.Errorf("%s: step %d: export_pull: %w", st.Pos, st.Index, err)
	}
	delivered := 0
	for _, n := range chunkSizes(len(archive), p.Seed+st.Pos.String()) {
		data := base64.StdEncoding.EncodeToString(archive[delivered : delivered+n])
		if f, err := p.Send(ctx, st.Export.Chunk(st, delivered, data)); f != nil || err != nil {
			return f, err
		}
		delivered += n
		// WS-28.3: Core sends next only after a chunk, with offset = the total bytes received.
		if _, f := p.Expect(ctx, st.Export.Next(st, delivered)); f != nil {
			return f, nil
		}
	}
	return p.Send(ctx, st.Export.Completed(st, delivered))
}

// exportArchive renders the archive a scripted Runtime serves: the step's template resolved (a
// $tar's archive, a literal's bytes), with an empty tar archive for an unbound placeholder.
func (p *Player) exportArchive(st *scenarios.Step) ([]byte, error) {
	empty := base64.StdEncoding.EncodeToString(scenarios.TarArchive(nil))
	tmpl := st.Export.Archive
	if tmpl == nil {
		tmpl = empty
	}
	v, err := p.B.Resolve(tmpl, func(string, string) scenarios.Value { return empty }, nil)
	if err != nil {
		return nil, err
	}
	s, ok := v.(string)
	archive, derr := base64.StdEncoding.DecodeString(s)
	switch {
	case !ok || derr != nil:
		return nil, fmt.Errorf("the archive must render to base64, got %.60v", v)
	case len(archive) == 0:
		return nil, fmt.Errorf("the archive renders to no bytes: an export is at least one chunk (WS-28.1)")
	}
	return archive, nil
}

// chunkSizes cuts total bytes into chunks of seeded sizes, each 1 byte to 64 KiB, so the
// self-check exercises a pull that cannot know how a Runtime cuts its archive.
func chunkSizes(total int, seed string) []int {
	h := uint64(1469598103934665603)
	for _, c := range []byte(seed) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	var out []int
	for left := total; left > 0; {
		h ^= h << 13
		h ^= h >> 7
		h ^= h << 17
		n := 1 + int(h%uint64(min(left, proto.TransferChunkBytes)))
		out = append(out, n)
		left -= n
	}
	return out
}
