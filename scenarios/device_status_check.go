package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// DeviceStatusCheck asks Core's device-status route (GET ?device_id=, with the device's Bearer
// credential, protocol-facts.md §1.1) whether the scenario's device is online. Unlike the other
// checks it is a wire observation: the Runtime side asks it itself, over HTTP, and it waits (bounded)
// until the answer holds, so a check after a disconnect orders after Core has seen it.
type DeviceStatusCheck struct {
	Online bool
}

func (c *DeviceStatusCheck) String() string {
	return fmt.Sprintf("device-status answers online: %v for the scenario's device", c.Online)
}

func (p *parser) deviceStatusCheck(v *yaml.Node) *DeviceStatusCheck {
	f := p.fields(v, "check.device_status", "online")
	if f == nil {
		return nil
	}
	if f["online"] == nil {
		p.Errorf(v.Line, "check.device_status needs online: true or false")
		return nil
	}
	return &DeviceStatusCheck{Online: p.Bool(f["online"], "online")}
}
