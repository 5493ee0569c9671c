//go:build !unix

package runner

import "net/http"

// smallSendBufferClient: the daemon's default client where socket options are not set.
func smallSendBufferClient() *http.Client { return nil }
