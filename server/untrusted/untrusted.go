// Package untrusted fetches a URL that someone other than the admin chose
// (a host's file link, handed over in a tool call) the way Mattermost
// fetches an untrusted URL: the address is checked against
// ServiceSettings.AllowedUntrustedInternalConnections, so loopback, private,
// link-local and cloud metadata addresses are refused unless the admin
// listed them; the name is resolved once and the connection is pinned to
// the address that was checked, so a second answer of the DNS cannot move
// it; every redirect is checked again; plain http goes only to a listed
// host; and a connection that stalls is given up.
//
// It also sees the bytes under HTTP's framing, which net/http hides: a
// response whose body runs past its Content-Length is reported
// (ErrLonger), since the bytes kept would not be the bytes sent.
package untrusted

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Refusal is an address or URL the policy does not allow; Host is what
// the person or admin would recognise.
type Refusal struct {
	Host   string
	Reason string
}

func (r *Refusal) Error() string { return fmt.Sprintf("%s: %s", r.Host, r.Reason) }

// IsRefusal reports whether err is (or wraps) a Refusal.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// reserved are the ranges no untrusted URL may reach unless listed: what
// Mattermost reserves (RFC 6890's private, loopback and link-local ranges,
// where cloud metadata answers at 169.254.169.254), and the shared address
// space some clouds answer metadata on (100.100.100.200).
var reserved = mustPrefixes(
	"0.0.0.0/8",      // this network
	"10.0.0.0/8",     // private
	"100.64.0.0/10",  // shared address space (carrier NAT; some clouds' metadata)
	"127.0.0.0/8",    // loopback
	"169.254.0.0/16", // link-local, cloud metadata
	"172.16.0.0/12",  // private
	"192.0.0.0/24",   // IETF protocol assignments
	"192.168.0.0/16", // private
	"198.18.0.0/15",  // benchmarking
	"224.0.0.0/4",    // multicast
	"240.0.0.0/4",    // reserved, broadcast
	"::/128",         // unspecified
	"::1/128",        // loopback
	"64:ff9b::/96",   // NAT64 can reach any IPv4 address, the reserved ones too
	"fc00::/7",       // unique local (fd00:ec2::254 is a cloud's metadata)
	"fe80::/10",      // link-local
	"ff00::/8",       // multicast
)

func mustPrefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}

// Policy is the admin's list of untrusted internal connections, read as
// Mattermost reads it: host names, IP addresses and CIDR ranges, separated
// by spaces or commas.
type Policy struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
	// own are this machine's addresses: reaching itself is reaching
	// loopback by another name.
	own func() []netip.Addr
}

// maxPolicyEntries bounds what of the setting is read: a list longer than
// this is not an allow list anyone maintains by hand.
const maxPolicyEntries = 256

// ParsePolicy reads AllowedUntrustedInternalConnections.
func ParsePolicy(setting string) Policy {
	p := Policy{hosts: map[string]bool{}, own: ownAddrs}
	for i, f := range strings.Fields(strings.ReplaceAll(setting, ",", " ")) {
		if i == maxPolicyEntries {
			break
		}
		if pre, err := netip.ParsePrefix(f); err == nil {
			p.prefixes = append(p.prefixes, pre.Masked())
			continue
		}
		if a, err := netip.ParseAddr(f); err == nil {
			a = a.Unmap()
			p.prefixes = append(p.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p.hosts[strings.ToLower(strings.TrimSuffix(f, "."))] = true
	}
	return p
}

// HostListed is whether the admin listed host by name or, for an IP
// literal, by address or range: such a host may be reached by plain http
// and at any address.
func (p Policy) HostListed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if p.hosts[host] {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return p.listed(a.Unmap())
	}
	return false
}

func (p Policy) listed(a netip.Addr) bool {
	for _, pre := range p.prefixes {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// AllowAddr is whether an address of host may be connected to: any
// address not reserved and not this machine's, or one the admin listed.
func (p Policy) AllowAddr(host string, a netip.Addr) error {
	a = a.Unmap()
	if p.HostListed(host) || p.listed(a) {
		return nil
	}
	if a.Zone() != "" {
		return &Refusal{Host: host, Reason: "a scoped (link-local) address"}
	}
	for _, pre := range reserved {
		if pre.Contains(a) {
			return &Refusal{Host: host, Reason: fmt.Sprintf("%s is an internal address (%s), which this Mattermost reaches only when an admin lists it in Allowed untrusted internal connections", a, pre)}
		}
	}
	if p.own != nil {
		for _, o := range p.own() {
			if o == a {
				return &Refusal{Host: host, Reason: fmt.Sprintf("%s is this server's own address", a)}
			}
		}
	}
	return nil
}

// ownAddrs are the addresses of this machine's interfaces.
func ownAddrs() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}
