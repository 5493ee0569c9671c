package proto

import "testing"

func TestSmokeFactsFrames(t *testing.T) {
	frames := []string{
		`{"type":"execution_prepare","id":"prepare","payload":{"session_id":"session","configuration":{"agent_kind":"contract","conversation_id":"","run_id":"","agent_state_key":"agents-api-session","strict_resume":true,"disable_execution_environment":true}}}`,
		`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":1,"state":"preparing","expires_at":1800000000000}}`,
		`{"type":"execution_start","id":"prepare","payload":{"executor_id":"executor","handle":"handle","run_id":"run","input":[{"content":[{"type":"input_text","text":"hello"}]}]}}`,
		`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":3,"state":"starting","expires_at":1800000000000,"run_id":"run"}}`,
		`{"type":"prompt_cancel","id":"run","payload":{"delivery_id":"cancel"}}`,
		`{"type":"done","id":"run","payload":{"content":""}}`,
		`{"type":"interaction_decision_ack","id":"run","payload":{"delivery_id":"cancel","applied":true,"outcome":{"content":"partial","metadata":{"agent_session_id":"native-session"}}}}`,
		`{"type":"permission_cancel","id":"req"}`,
		`{"type":"error","id":"run","payload":{"error":"boom","code":42,"http_status":"x"}}`,
	}
	for _, f := range frames {
		if _, err := ParseFrame([]byte(f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	bad := map[string]string{
		`{"type":"execution_prepare","id":"prepare","payload":{"session_id":"session","configuration":{"agent_kind":"contract","bogus":1}}}`:                           "execution_prepare.configuration.bogus: unknown member",
		`{"type":"preparation_status","id":"prepare","payload":{"revision":1,"state":"nope"}}`:                                                                         "preparation_status.state: must be one of preparing, ready, starting, started, released, expired, failed, rejected",
		`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":{"streaming":true}}]}}`: "heartbeat.supported_agent_kinds[0].capabilities.subagent_observations: is required: every capability must be present, including false",
		`{"type":"delta","id":"run","payload":{"delta":1,"sequence":1}}`:                                                                                               "delta.delta: must be a JSON string",
		`{"type":"runtime_prepare","id":"5f0c3d6e-8a1b-4c2d-9e3f-1a2b3c4d5e6f","payload":{"step":"begin","environment_id":"5f0c3d6e-8a1b-4c2d-9e3f-1a2b3c4d5e6f","session_id":"5f0c3d6e-8a1b-4c2d-9e3f-1a2b3c4d5e6f","action":"file","file":{"path":"/workspace/a"},"size_bytes":3,"sha256":"ABC"}}`: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters",
	}
	for f, want := range bad {
		_, err := ParseFrame([]byte(f))
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", f, err, want)
		}
	}
}
