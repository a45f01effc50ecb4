//go:build linux

package egress

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestListenerRefusesOtherUsersForReal connects as user nobody, from a
// real process, through the kernel's own record of who owns the socket.
func TestListenerRefusesOtherUsersForReal(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	up := startUpstream(t, "127.0.0.1", false)
	p := newProxy(t, Options{})
	s := newSession(t, p, Policy{AllowHosts: []string{up.addr}})
	host, port, _ := net.SplitHostPort(s.Addr())
	script := `exec 3<>/dev/tcp/` + host + `/` + port + ` || exit 9
printf 'GET http://` + up.addr + `/ HTTP/1.1\r\nHost: ` + up.addr + `\r\nConnection: close\r\n\r\n' >&3
cat <&3`
	run := func(uid uint32) string {
		cmd := exec.Command(bash, "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := run(0); !strings.Contains(out, "200 OK") {
		t.Fatalf("root, browserd's user: %q", out)
	}
	if out := run(65534); strings.Contains(out, "HTTP/1.1") {
		t.Fatalf("user nobody got an answer through the listener: %q", out)
	}
	if n := up.hits.Load(); n != 1 {
		t.Errorf("upstream hits = %d, want 1", n)
	}
}
