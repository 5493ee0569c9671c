package scriptedruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// deviceStatus answers check.device_status itself: it asks Core's device-status route for the
// scenario's device, with its Bearer credential, until the answer says online as the check does
// or the step's time runs out. The answer must name the device and carry online.
func (r *run) deviceStatus(ctx context.Context, st *scenarios.Step) *stepFailure {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	want := st.Check.DeviceStatus.Online
	var last string
	for {
		got, err := r.askDeviceStatus(ctx)
		switch {
		case err != nil:
			last = err.Error()
		case got.DeviceID != r.id.DeviceID:
			return fail(r.p.Failf(st, "device-status answered device_id %q for device %q", got.DeviceID, r.id.DeviceID))
		case got.Online == want:
			r.p.Rec.Event("device-status", fmt.Sprintf("online: %v", got.Online))
			return nil
		default:
			last = fmt.Sprintf("online: %v", got.Online)
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fail(r.p.Failf(st, "device-status never answered online: %v within %v (last: %s)", want, r.cfg.Timeout, last))
		}
	}
}

func (r *run) askDeviceStatus(ctx context.Context) (*proto.DeviceStatusResponse, error) {
	target := strings.TrimSuffix(r.cfg.ServerURL, "/") + strings.TrimPrefix(proto.RouteDeviceStatus, proto.APIPrefix) +
		"?" + url.Values{proto.QueryDeviceID: {r.id.DeviceID}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+r.id.Credential)
	resp, err := client.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("device-status answered %d: %s", resp.StatusCode, data)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("device-status answered no JSON object: %w", err)
	}
	for _, k := range []string{"device_id", "online"} {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("device-status answer has no %s: %s", k, data)
		}
	}
	var out proto.DeviceStatusResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("device-status answer: %w", err)
	}
	return &out, nil
}
