package gateway

import (
	"sync"

	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// registry holds the live connection of each device. A newer connection replaces the previous one:
// the old Session is closed and its Run and interaction routes are evicted, and the new one inherits
// none of them. A late deregistration of the old Session never removes the newer one.
type registry struct {
	mu       sync.Mutex
	byDevice map[string]*Session
}

func newRegistry() *registry { return &registry{byDevice: map[string]*Session{}} }

// register installs s and returns the Session it replaced, if any.
func (r *registry) register(s *Session) (replaced *Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	replaced = r.byDevice[s.deviceID]
	r.byDevice[s.deviceID] = s
	return replaced
}

// deregister removes s only if it is still the device's Session.
func (r *registry) deregister(s *Session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byDevice[s.deviceID] != s && !mutation.On(mutation.DeregisterNewerSession) {
		return false
	}
	delete(r.byDevice, s.deviceID)
	return true
}

func (r *registry) get(deviceID string) *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byDevice[deviceID]
}
