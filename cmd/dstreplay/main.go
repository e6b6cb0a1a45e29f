// Command dstreplay reads the traces that package sched saves for failing
// tests (testdata/dst/<Test>/*.trace): dstreplay show, summary and diff;
// dstreplay help lists the commands.
package main

import (
	"os"

	"github.com/dstgo/dst/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
