//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// forwardProxy runs in the launcher, inside the sandbox's fresh network
// namespace: it brings the loopback up, listens on 127.0.0.1:port and
// forwards every connection to the filtering proxy's unix socket outside.
// A unix socket is reached by path, not through the network stack, so it
// crosses the network namespace; nothing else does. The forwarding
// goroutines run on the launcher's other threads, which Landlock does not
// restrict (only the thread that starts the handler is).
func forwardProxy(port int, socket string) error {
	if err := loopbackUp(); err != nil {
		return err
	}
	l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				up, err := net.DialTimeout("unix", socket, 10*time.Second)
				if err != nil {
					c.Close()
					return
				}
				done := make(chan struct{}, 2)
				go func() { io.Copy(up, c); up.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
				go func() { io.Copy(c, up); c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
				<-done
				<-done
				c.Close()
				up.Close()
			}()
		}
	}()
	return nil
}

// loopbackUp sets lo up (IFF_UP) in the current network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}
