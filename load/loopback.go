package load

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"
)

// checkLoopback refuses a URL whose host is not a loopback address: a load run floods what it
// targets, so it may only target this machine. A name must resolve to loopback addresses only.
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q: %w", raw, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("%q: the scheme must be http(s) or ws(s)", raw)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("%q: %s is not a loopback address; wirecheck load sends traffic only to loopback", raw, host)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("%q: resolving %s: %w", raw, host, err)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("%q: %s resolves to %s, not a loopback address; wirecheck load sends traffic only to loopback", raw, host, a.IP)
		}
	}
	if len(addrs) == 0 {
		return fmt.Errorf("%q: %s resolves to nothing", raw, host)
	}
	return nil
}
