package proto

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Content part types.
const (
	ContentInputText  = "input_text"
	ContentInputImage = "input_image"
)

// MessageInput is the ordered user input of prompt_request, execution_start and prompt_steer. The
// order of messages and of parts is significant and must be preserved.
type MessageInput []InputMessage

// InputMessage is one message of a MessageInput.
type InputMessage struct {
	Content []InputContent `json:"content" wire:"req"`
}

// InputContent is one part: {"type":"input_text","text":…} or {"type":"input_image","image_url":…},
// with exactly the member that matches the type. It is also used for function results and tool
// observations.
type InputContent struct {
	Type     string
	Text     string
	ImageURL string
}

// Text returns a text part.
func Text(s string) InputContent { return InputContent{Type: ContentInputText, Text: s} }

// Image returns an image part.
func Image(url string) InputContent { return InputContent{Type: ContentInputImage, ImageURL: url} }

// TextInput is a MessageInput of one message with one text part.
func TextInput(s string) MessageInput {
	return MessageInput{{Content: []InputContent{Text(s)}}}
}

func (*InputContent) selfShaped() {}

func (c InputContent) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentInputText:
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{c.Type, c.Text})
	case ContentInputImage:
		return json.Marshal(struct {
			Type     string `json:"type"`
			ImageURL string `json:"image_url"`
		}{c.Type, c.ImageURL})
	default:
		return nil, violation("type", "must be input_text or input_image")
	}
}

// UnmarshalJSON is strict: a known type and exactly its member, nothing else.
func (c *InputContent) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return violation("", "must be a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return violation("", "must be a JSON object")
	}
	str := func(name string) (string, error) {
		raw, ok := m[name]
		if !ok {
			return "", violation(name, "is required")
		}
		var s string
		if !isString(raw) || json.Unmarshal(raw, &s) != nil {
			return "", violation(name, "must be a JSON string")
		}
		return s, nil
	}
	typ, err := str("type")
	if err != nil {
		return err
	}
	var want string
	switch typ {
	case ContentInputText:
		want = "text"
	case ContentInputImage:
		want = "image_url"
	default:
		return violation("type", "must be input_text or input_image")
	}
	if name, ok := firstUnknown(m, func(name string) bool { return name == "type" || name == want }); ok {
		return violation(name, "unknown member for a %s part", typ)
	}
	val, err := str(want)
	if err != nil {
		return err
	}
	*c = InputContent{Type: typ}
	if typ == ContentInputText {
		c.Text = val
	} else {
		c.ImageURL = val
	}
	return nil
}

// meaningful reports whether a part carries content: an image with a non-blank reference or text
// that is non-blank after trimming. Text is never trimmed on the wire; this is only a test.
func (c InputContent) meaningful() bool {
	if c.Type == ContentInputImage {
		return strings.TrimSpace(c.ImageURL) != ""
	}
	return strings.TrimSpace(c.Text) != ""
}

// Validate checks one part, including the inline image profile for images.
func (c InputContent) Validate() error {
	switch c.Type {
	case ContentInputText:
		return nil
	case ContentInputImage:
		return within("image_url", ValidateImageURL(c.ImageURL))
	default:
		return violation("type", "must be input_text or input_image")
	}
}

// HasImage reports whether any part of the input is an image.
func (in MessageInput) HasImage() bool {
	for _, m := range in {
		if ContentHasImage(m.Content) {
			return true
		}
	}
	return false
}

// ContentHasImage reports whether any part is an image.
func ContentHasImage(parts []InputContent) bool {
	for _, p := range parts {
		if p.Type == ContentInputImage {
			return true
		}
	}
	return false
}

// Validate: at least one message, and every message has at least one meaningful part (an empty text
// part beside other content is allowed).
func (in MessageInput) Validate() error {
	if len(in) == 0 {
		return violation("", "must contain at least one message")
	}
	for i, m := range in {
		p := indexPath("", i)
		if len(m.Content) == 0 {
			return violation(p+".content", "must contain at least one part")
		}
		meaningful := false
		for j, part := range m.Content {
			if err := part.Validate(); err != nil {
				return within(indexPath(p+".content", j), err)
			}
			meaningful = meaningful || part.meaningful()
		}
		if !meaningful {
			return violation(p+".content", "must contain non-blank text or an image")
		}
	}
	return nil
}

// ValidateImageURL checks the inline image profile: a data URL of PNG or JPEG in canonical standard
// base64 whose decoded bytes really are that format. Remote URLs and file IDs are refused.
func ValidateImageURL(url string) error {
	var format string
	var body string
	switch {
	case strings.HasPrefix(url, "data:image/png;base64,"):
		format, body = "png", strings.TrimPrefix(url, "data:image/png;base64,")
	case strings.HasPrefix(url, "data:image/jpeg;base64,"):
		format, body = "jpeg", strings.TrimPrefix(url, "data:image/jpeg;base64,")
	default:
		return violation("", "must be a data:image/png;base64 or data:image/jpeg;base64 URL")
	}
	data, err := base64.StdEncoding.Strict().DecodeString(body)
	if err != nil || base64.StdEncoding.EncodeToString(data) != body {
		return violation("", "must be canonical standard base64")
	}
	switch format {
	case "png":
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			return violation("", "declares image/png but the bytes are not PNG")
		}
	case "jpeg":
		if !bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}) {
			return violation("", "declares image/jpeg but the bytes are not JPEG")
		}
	}
	return nil
}
