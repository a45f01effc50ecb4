package urlpolicy

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// IPv4Host reads a host the way a browser's URL parser does when its last
// label is a number: as an IPv4 address whose parts may be decimal, octal
// (0…) or hex (0x…), fewer than four with the last filling the rest
// ("0x7f.1", "2130706433" and "0177.0.0.1" are all 127.0.0.1). isIP is
// false for a host name.
func IPv4Host(h string) (ip string, isIP bool, err error) {
	labels := strings.Split(strings.TrimSuffix(h, "."), ".")
	if !EndsInNumber(labels[len(labels)-1]) {
		return "", false, nil
	}
	a, ok := LegacyIPv4(labels)
	if !ok {
		return "", true, errNotIPv4
	}
	return a.String(), true, nil
}

var errNotIPv4 = errors.New("the host ends in a number, so a browser reads it as an IPv4 address, and it is not one (four numbers of 0-255 at most)")

// EndsInNumber reports whether a label makes the WHATWG URL parser treat
// the whole host as IPv4: all decimal digits, or 0x followed by hex digits.
func EndsInNumber(l string) bool {
	if l == "" {
		return false
	}
	if _, ok := IPv4Number(l); ok {
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// IPv4Number parses one part of a legacy IPv4 address: 0x-prefixed
// hex, 0-prefixed octal, or decimal.
func IPv4Number(s string) (uint64, bool) {
	if s == "" || len(s) > 40 {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// LegacyIPv4 implements the WHATWG IPv4 parser on labels.
func LegacyIPv4(labels []string) (netip.Addr, bool) {
	if len(labels) == 0 || len(labels) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, l := range labels {
		n, ok := IPv4Number(l)
		if !ok {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= uint64(1)<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
