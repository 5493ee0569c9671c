package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// script is the subset of the contract Harness's script (docs/contract-harness.md §3) a simulated
// Runtime plays. Anything outside the subset is refused, as the contract Harness refuses an
// unknown member: a load run must never silently play a different Turn than it asked for.
type script struct {
	steps         []step
	done          []byte // the payload of the Turn's done
	waitForCancel bool
	cancelOutcome json.RawMessage // absent: the receipt says cancel_outcome_unavailable
}

type step struct {
	typ     string          // delta, thinking, usage; empty for a delay
	text    string          // a delta's text
	payload json.RawMessage // thinking and usage, as sent
	delay   time.Duration
}

type scriptJSON struct {
	Turn *struct {
		Events        []map[string]json.RawMessage `json:"events"`
		Content       string                       `json:"content"`
		Usage         json.RawMessage              `json:"usage"`
		WaitForCancel bool                         `json:"wait_for_cancel"`
	} `json:"turn"`
	Cancel *struct {
		Outcome json.RawMessage `json:"outcome"`
	} `json:"cancel"`
}

// scripts caches parsed scripts by their bytes: a load run plays a handful of scripts thousands
// of times, and a parsed script is shared read-only.
type scripts struct {
	mu sync.Mutex
	m  map[string]*script
}

// parse reads the contract member of agent_options (absent or null: the empty script).
func (c *scripts) parse(agentOptions json.RawMessage) (*script, error) {
	key := string(agentOptions)
	c.mu.Lock()
	s, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := parseScript(agentOptions)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) < 64 { // a bound, in case a Core sends a new script every Turn
		c.m[key] = s
	}
	c.mu.Unlock()
	return s, nil
}

func parseScript(agentOptions json.RawMessage) (*script, error) {
	s := &script{done: []byte(`{"content":""}`)}
	var opts map[string]json.RawMessage
	if len(agentOptions) > 0 {
		if err := json.Unmarshal(agentOptions, &opts); err != nil {
			return nil, fmt.Errorf("agent_options: %w", err)
		}
	}
	raw := opts["contract"]
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var sj scriptJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sj); err != nil {
		return nil, fmt.Errorf("agent_options.contract (the load simulator plays a subset of the script): %w", err)
	}
	if sj.Cancel != nil {
		s.cancelOutcome = sj.Cancel.Outcome
	}
	if sj.Turn == nil {
		return s, nil
	}
	s.waitForCancel = sj.Turn.WaitForCancel
	done := map[string]any{"content": sj.Turn.Content}
	if len(sj.Turn.Usage) > 0 {
		done["usage"] = sj.Turn.Usage
	}
	s.done, _ = json.Marshal(done)
	for i, ev := range sj.Turn.Events {
		if len(ev) != 1 {
			return nil, fmt.Errorf("agent_options.contract.turn.events[%d]: exactly one member", i)
		}
		for k, v := range ev {
			st, err := parseStep(k, v)
			if err != nil {
				return nil, fmt.Errorf("agent_options.contract.turn.events[%d].%s: %w", i, k, err)
			}
			s.steps = append(s.steps, st)
		}
	}
	return s, nil
}

func parseStep(k string, v json.RawMessage) (step, error) {
	switch k {
	case "delta":
		var text string
		err := json.Unmarshal(v, &text)
		return step{typ: k, text: text}, err
	case "thinking":
		var text string
		if err := json.Unmarshal(v, &text); err != nil {
			return step{}, err
		}
		p, _ := json.Marshal(map[string]string{"text": text})
		return step{typ: k, payload: p}, nil
	case "usage":
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(v, &obj); err != nil {
			return step{}, err
		}
		return step{typ: k, payload: v}, nil
	case "delay_ms":
		var ms int64
		err := json.Unmarshal(v, &ms)
		return step{delay: time.Duration(ms) * time.Millisecond}, err
	}
	return step{}, fmt.Errorf("not a step the load simulator plays (delta, thinking, usage, delay_ms)")
}
