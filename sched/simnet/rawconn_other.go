//go:build !linux

package simnet

// socketPair stands for Linux's (rawconn_linux.go): raw reads and writes
// of a simulated socket fail here.
type socketPair struct{ ours, theirs int }

func newSocketPair() (*socketPair, error) { return nil, errNoRawIO }
func (p *socketPair) fill([]byte) error   { return errNoRawIO }
func (p *socketPair) eof()                {}
func (p *socketPair) drain() []byte       { return nil }
func (p *socketPair) drainOurs() []byte   { return nil }
func (p *socketPair) close()              {}
