package sched_test

import "runtime"

func runtimeGoexit() { runtime.Goexit() }
