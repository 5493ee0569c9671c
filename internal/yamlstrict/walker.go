package yamlstrict

import (
	"bytes"
	"errors"
	"io"
	"iter"

	"gopkg.in/yaml.v3"
)

// Lang holds the words a loader's errors use where the two loaders differ.
type Lang struct {
	// Files names the files in refusals: "YAML aliases (*a) are not supported in <Files>".
	Files string
	// Reuse, if set, follows the refusal of an alias, anchor or merge key: what to write instead.
	Reuse string
	// DurationExamples ends "must be a duration such as <DurationExamples>, got ...".
	DurationExamples string
}

// Walker reads the nodes of one file and collects every problem it finds, with its line.
type Walker struct {
	File string
	Lang Lang
	Errs Errors
}

// New returns a walker for file.
func New(file string, lang Lang) *Walker { return &Walker{File: file, Lang: lang} }

// Document is one YAML document of a file.
type Document struct {
	Line int        // where it starts: its --- line, else its first line
	Root *yaml.Node // its content; a null scalar when it has none
	// Refused: it holds a construct Check refuses (already reported); its nodes are not read.
	Refused bool
}

// Documents yields the documents of data in order, each checked by Check. A syntax error is
// reported and ends the sequence, so the documents before it are still read.
func (w *Walker) Documents(data []byte) iter.Seq[Document] {
	return func(yield func(Document) bool) {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				w.syntaxError(err)
				return
			}
			root := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: doc.Line, Column: doc.Column}
			if len(doc.Content) > 0 {
				root = doc.Content[0]
			}
			if !yield(Document{Line: doc.Line, Root: root, Refused: !w.Check(root)}) {
				return
			}
		}
	}
}

// Check reports every construct under n that has no place in a JSON-shaped file, and says whether
// there was none. Aliases re-expand their anchor at every use (a few lines can stand for millions
// of nodes), so they, the anchors they name and the merge keys that use them are refused; a tag
// would be dropped silently by the conversion to JSON values; a key that is a mapping or a list
// has no JSON spelling.
func (w *Walker) Check(n *yaml.Node) bool {
	before := len(w.Errs)
	w.check(n)
	return len(w.Errs) == before
}

func (w *Walker) check(n *yaml.Node) {
	if n.Kind == yaml.AliasNode {
		w.refuse(n.Line, "YAML aliases (*"+n.Value+")", true)
		return
	}
	if n.Anchor != "" {
		w.refuse(n.Line, "YAML anchors (&"+n.Anchor+")", true)
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!merge" {
		w.refuse(n.Line, "YAML merge keys (<<)", true)
	} else if n.Style&yaml.TaggedStyle != 0 {
		w.refuse(n.Line, "YAML tags ("+n.Tag+")", false)
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && (c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode) {
			w.Errorf(c.Line, "a mapping key must be a scalar, not a mapping or a list")
			continue
		}
		w.check(c)
	}
}

func (w *Walker) refuse(line int, what string, reuse bool) {
	msg := what + " are not supported in " + w.Lang.Files
	if reuse && w.Lang.Reuse != "" {
		msg += ": " + w.Lang.Reuse
	}
	w.Errorf(line, "%s", msg)
}
