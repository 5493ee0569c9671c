package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Device is a registered device a simulated Runtime connects as.
type Device struct {
	ID         string `json:"device_id"`
	Credential string `json:"credential"`
}

// Registrar registers the i-th device (from 0).
type Registrar func(ctx context.Context, i int) (Device, error)

// APIRegistrar registers devices through the reference Core's API: POST /api/v1/devices.
func APIRegistrar(coreURL string, client *http.Client) Registrar {
	return func(ctx context.Context, i int) (Device, error) {
		body := fmt.Sprintf(`{"device_id":"load-%06d"}`, i)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(coreURL, "/")+"/api/v1/devices", strings.NewReader(body))
		if err != nil {
			return Device{}, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return Device{}, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		if resp.StatusCode != http.StatusCreated {
			return Device{}, fmt.Errorf("POST /api/v1/devices: %s: %s", resp.Status, bytes.TrimSpace(raw))
		}
		var d Device
		if err := json.Unmarshal(raw, &d); err != nil || d.ID == "" || d.Credential == "" {
			return Device{}, fmt.Errorf("POST /api/v1/devices: answer without device_id and credential: %s", bytes.TrimSpace(raw))
		}
		return d, nil
	}
}

// CommandRegistrar registers each device by running command with sh -c, WIRECHECK_DEVICE_INDEX
// set to the device's index. The command prints the device ID and the credential: either one
// line "DEVICE_ID CREDENTIAL" or a JSON object {"device_id", "credential"}.
func CommandRegistrar(command string) Registrar {
	return func(ctx context.Context, i int) (Device, error) {
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Env = append(os.Environ(), "WIRECHECK_DEVICE_INDEX="+strconv.Itoa(i))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return Device{}, fmt.Errorf("--register-cmd (device %d): %w: %s", i, err, bytes.TrimSpace(stderr.Bytes()))
		}
		return parseRegistration(out)
	}
}

func parseRegistration(out []byte) (Device, error) {
	out = bytes.TrimSpace(out)
	var d Device
	if bytes.HasPrefix(out, []byte("{")) {
		if err := json.Unmarshal(out, &d); err != nil {
			return Device{}, fmt.Errorf("--register-cmd printed JSON that is not {\"device_id\", \"credential\"}: %w", err)
		}
	} else if f := strings.Fields(string(out)); len(f) == 2 {
		d = Device{ID: f[0], Credential: f[1]}
	}
	if d.ID == "" || d.Credential == "" {
		return Device{}, fmt.Errorf("--register-cmd must print \"DEVICE_ID CREDENTIAL\" or {\"device_id\",\"credential\"}; it printed %d bytes", len(out))
	}
	return d, nil
}
