module github.com/dstgo/dst

go 1.26

require (
	github.com/klauspost/compress v1.20.3
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261
	go.uber.org/goleak v1.3.0
)
