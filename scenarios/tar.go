package scenarios

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// TarFiles reads an export archive (protocol-facts §4.15: "the stream is a tar archive of output
// files") and returns its regular files, name → content. It keeps only what the spec fixes of the
// archive: which files it holds and their bytes. Directories, links and other entries are skipped
// (an export carries output files); headers' times, owners and modes are the Runtime's filesystem,
// which no scenario fixes. A name is compared cleaned ("./a//b" is "a/b"); a name that appears
// twice keeps its last entry, as extracting the archive would.
//
// The archive comes from a peer under test, so reading it is bounded: its files together hold no
// more bytes than the archive itself, which every ustar or PAX archive keeps (the format
// docs/contract-harness.md §8.1 fixes stores each file's bytes as they are); a sparse entry that
// expands past that is refused, not allocated.
func TarFiles(archive []byte) (map[string][]byte, error) {
	files := map[string][]byte{}
	left := int64(len(archive))
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not a tar archive: %v", err)
		}
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeGNUSparse {
			continue
		}
		content, err := io.ReadAll(io.LimitReader(tr, left+1))
		if err != nil {
			return nil, fmt.Errorf("not a tar archive: %s: %v", hdr.Name, err)
		}
		if int64(len(content)) > left {
			return nil, fmt.Errorf("%s: its files hold more bytes than the archive itself (a sparse entry?)", hdr.Name)
		}
		left -= int64(len(content))
		files[path.Clean(hdr.Name)] = content
	}
}

// TarArchive writes files (name → content) as a ustar archive, in name order, each a regular file
// of mode 0644 with the zero time: the bytes a scripted Runtime serves for a {$tar: ...} template.
func TarArchive(files map[string][]byte) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(files[name])), ModTime: time.Unix(0, 0)}
		// Writing to a buffer fails only on a header tar cannot encode, which tarName refuses at load.
		_ = tw.WriteHeader(hdr)
		_, _ = tw.Write(files[name])
	}
	_ = tw.Close()
	return buf.Bytes()
}

// tarName checks a file name a {$tar: ...} template names: workspace-relative, clean, and a file
// (no trailing "/"), as archived names are compared (TarFiles).
func tarName(name string) error {
	if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
		return fmt.Errorf("%q is not a clean relative file name (no leading /, no . or .. element, no trailing /)", name)
	}
	return nil
}

// tarFilesView is the archive as a {$tar: ...} template is matched against it: name → content in
// base64, the encoding every data member of the wire uses.
func tarFilesView(archive []byte) (map[string]any, error) {
	files, err := TarFiles(archive)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(files))
	for name, content := range files {
		out[name] = base64.StdEncoding.EncodeToString(content)
	}
	return out, nil
}
