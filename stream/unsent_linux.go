//go:build linux

package stream

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unsent returns how many bytes written to conn its peer has not yet acknowledged: what sits
// in this machine's send queue. ok is false when the connection cannot tell.
func unsent(conn net.Conn) (n int, ok bool) {
	sc, isSC := netConn(conn).(syscall.Conn)
	if !isSC {
		return 0, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var ioErr error
	if err := raw.Control(func(fd uintptr) { n, ioErr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil || ioErr != nil {
		return 0, false
	}
	return n, true
}
