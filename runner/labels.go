package runner

import (
	"fmt"
	"strings"
	"unicode"
)

// LabelFilter is a boolean expression over scenario labels, in Ginkgo's spirit:
// `preparation && !long-timer`, `(cancellation || shutdown) && execution`. A bare label is true
// when the scenario carries it. The empty filter selects everything.
type LabelFilter struct {
	src  string
	root expr
}

type expr interface {
	eval(labels map[string]bool) bool
}

type (
	labelExpr string
	notExpr   struct{ x expr }
	andExpr   struct{ l, r expr }
	orExpr    struct{ l, r expr }
	trueExpr  struct{}
)

func (e labelExpr) eval(l map[string]bool) bool { return l[string(e)] }
func (e notExpr) eval(l map[string]bool) bool   { return !e.x.eval(l) }
func (e andExpr) eval(l map[string]bool) bool   { return e.l.eval(l) && e.r.eval(l) }
func (e orExpr) eval(l map[string]bool) bool    { return e.l.eval(l) || e.r.eval(l) }
func (trueExpr) eval(map[string]bool) bool      { return true }

// ParseLabelFilter parses a filter; errors name the position.
func ParseLabelFilter(src string) (*LabelFilter, error) {
	p := &filterParser{src: src}
	p.next()
	if p.tok == "" {
		return &LabelFilter{src: src, root: trueExpr{}}, nil
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok != "" {
		return nil, fmt.Errorf("label filter %q: unexpected %q at %d", src, p.tok, p.pos)
	}
	return &LabelFilter{src: src, root: e}, nil
}

// Match reports whether labels satisfy the filter.
func (f *LabelFilter) Match(labels []string) bool {
	if f == nil {
		return true
	}
	set := make(map[string]bool, len(labels))
	for _, l := range labels {
		set[l] = true
	}
	return f.root.eval(set)
}

func (f *LabelFilter) String() string { return f.src }

type filterParser struct {
	src    string
	i, pos int
	tok    string
}

func (p *filterParser) next() {
	for p.i < len(p.src) && p.src[p.i] == ' ' {
		p.i++
	}
	p.pos = p.i
	if p.i >= len(p.src) {
		p.tok = ""
		return
	}
	for _, op := range []string{"&&", "||", "!", "(", ")"} {
		if strings.HasPrefix(p.src[p.i:], op) {
			p.tok = op
			p.i += len(op)
			return
		}
	}
	j := p.i
	for j < len(p.src) {
		r := rune(p.src[j])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == ':' || r == '/') {
			break
		}
		j++
	}
	if j == p.i {
		p.tok = p.src[p.i : p.i+1]
		p.i++
		return
	}
	p.tok = p.src[p.i:j]
	p.i = j
}

func (p *filterParser) or() (expr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.tok == "||" {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = orExpr{l, r}
	}
	return l, nil
}

func (p *filterParser) and() (expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.tok == "&&" {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = andExpr{l, r}
	}
	return l, nil
}

func (p *filterParser) unary() (expr, error) {
	switch p.tok {
	case "!":
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notExpr{x}, nil
	case "(":
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok != ")" {
			return nil, fmt.Errorf("label filter %q: missing ) at %d", p.src, p.pos)
		}
		p.next()
		return x, nil
	case "", "&&", "||", ")":
		return nil, fmt.Errorf("label filter %q: expected a label at %d", p.src, p.pos)
	}
	l := labelExpr(p.tok)
	p.next()
	return l, nil
}
