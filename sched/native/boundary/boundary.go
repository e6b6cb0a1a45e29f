// Package boundary is what rewritten code calls in place of the standard
// functions that start work the scheduler does not run: a listener or a
// connection (package net), an HTTP server or client (net/http,
// net/http/httptest), a child process (os/exec), a database pool
// (database/sql). Each calls the standard function, unchanged; inside a run
// it first notes, once per run and function, that what it starts runs
// natively (its goroutines, its I/O): the interleavings there are not
// explored, and a replay does not reproduce them. The test's report says
// so, rather than passing in silence as if they had been.
//
// It is not meant to be imported by hand: dstreplay test's rewrite uses it.
package boundary

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"time"

	"github.com/dstgo/dst/sched/native"
)

// Net's.

func NetListen(network, address string) (net.Listener, error) {
	native.Boundary("net.Listen")
	return net.Listen(network, address)
}

func NetListenPacket(network, address string) (net.PacketConn, error) {
	native.Boundary("net.ListenPacket")
	return net.ListenPacket(network, address)
}

func NetDial(network, address string) (net.Conn, error) {
	native.Boundary("net.Dial")
	return net.Dial(network, address)
}

func NetDialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	native.Boundary("net.DialTimeout")
	return net.DialTimeout(network, address, timeout)
}

// net/http's.

func HTTPListenAndServe(addr string, handler http.Handler) error {
	native.Boundary("http.ListenAndServe")
	return http.ListenAndServe(addr, handler)
}

func HTTPServe(l net.Listener, handler http.Handler) error {
	native.Boundary("http.Serve")
	return http.Serve(l, handler)
}

func HTTPGet(u string) (*http.Response, error) {
	native.Boundary("http.Get")
	return http.Get(u)
}

func HTTPHead(u string) (*http.Response, error) {
	native.Boundary("http.Head")
	return http.Head(u)
}

func HTTPPost(u, contentType string, body io.Reader) (*http.Response, error) {
	native.Boundary("http.Post")
	return http.Post(u, contentType, body)
}

func HTTPPostForm(u string, data url.Values) (*http.Response, error) {
	native.Boundary("http.PostForm")
	return http.PostForm(u, data)
}

// httptest's.

func HTTPTestNewServer(handler http.Handler) *httptest.Server {
	native.Boundary("httptest.NewServer")
	return httptest.NewServer(handler)
}

func HTTPTestNewTLSServer(handler http.Handler) *httptest.Server {
	native.Boundary("httptest.NewTLSServer")
	return httptest.NewTLSServer(handler)
}

func HTTPTestNewUnstartedServer(handler http.Handler) *httptest.Server {
	native.Boundary("httptest.NewUnstartedServer")
	return httptest.NewUnstartedServer(handler)
}

// os/exec's.

func ExecCommand(name string, arg ...string) *exec.Cmd {
	native.Boundary("exec.Command")
	return exec.Command(name, arg...)
}

func ExecCommandContext(ctx context.Context, name string, arg ...string) *exec.Cmd {
	native.Boundary("exec.CommandContext")
	return exec.CommandContext(ctx, name, arg...)
}

// database/sql's.

func SQLOpen(driverName, dataSourceName string) (*sql.DB, error) {
	native.Boundary("sql.Open")
	return sql.Open(driverName, dataSourceName)
}
