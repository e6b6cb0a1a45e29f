package entropy

import (
	"runtime"
	"strconv"
	"strings"
)

// siteCache maps caller PCs to keys. It is a slice-based open-addressing
// table owned by one Source rather than a Go map or sync.Map: the Source is
// handed between goroutines with no happens-before edge visible to the race
// detector, and the runtime's map code reports such writes as races even
// when called from //go:norace functions.
type siteCache struct {
	slots []siteSlot // len is zero or a power of two; pc == 0 marks empty
	n     int        // occupied slots
}

type siteSlot struct {
	pc  uintptr
	key Key
}

// callerKey returns the key of the site (package, file, line) that called the
// Source's default-key draw method. Neither callerKey nor the draw methods
// may be inlined: the skip count below assumes real frames (callerKey, the
// draw method, its caller), and the PC it keeps must be a return address in
// the caller. Were the draw method inlined, that PC would resolve to the
// draw method's own line, and every call site would share one key.
//
//go:noinline
//go:norace
func (s *Source) callerKey() Key {
	var pc [1]uintptr
	// 0: runtime.Callers, 1: callerKey, 2: the draw method, 3: its caller.
	if runtime.Callers(3, pc[:]) == 0 {
		return KeyOf("?")
	}
	s.lastPC = pc[0]
	return s.sites.lookup(pc[0])
}

//go:norace
func (c *siteCache) lookup(pc uintptr) Key {
	if len(c.slots) > 0 {
		mask := uintptr(len(c.slots) - 1)
		for i := hashPC(pc) & mask; ; i = (i + 1) & mask {
			sl := &c.slots[i]
			if sl.pc == pc {
				return sl.key
			}
			if sl.pc == 0 {
				break
			}
		}
	}
	key := symbolize(pc)
	c.insert(pc, key)
	return key
}

//go:norace
func (c *siteCache) insert(pc uintptr, key Key) {
	if (c.n+1)*4 > len(c.slots)*3 {
		c.grow()
	}
	mask := uintptr(len(c.slots) - 1)
	i := hashPC(pc) & mask
	for c.slots[i].pc != 0 {
		i = (i + 1) & mask
	}
	c.slots[i] = siteSlot{pc, key}
	c.n++
}

// grow doubles the table, re-inserting by hand (no copy builtin: under the
// race detector copy is checked by the runtime even in norace functions).
//
//go:norace
func (c *siteCache) grow() {
	old := c.slots
	size := 16
	if len(old) > 0 {
		size = 2 * len(old)
	}
	c.slots = make([]siteSlot, size)
	c.n = 0
	mask := uintptr(size - 1)
	for _, sl := range old {
		if sl.pc == 0 {
			continue
		}
		i := hashPC(sl.pc) & mask
		for c.slots[i].pc != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = sl
		c.n++
	}
}

// hashPC spreads a PC over the table (Fibonacci hashing); PCs of nearby call
// sites differ only in their low bits.
func hashPC(pc uintptr) uintptr {
	return uintptr((uint64(pc) * 0x9e3779b97f4a7c15) >> 32)
}

// symbolize computes KeyOf(function + ":" + line) for a return PC without
// building the string.
func symbolize(pc uintptr) Key {
	frame, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	// The package, the file's base name and the line: not the function's
	// name, because a closure's name depends on where the compiler inlined
	// the function that made it (f.func1 here, g.f.func2 there), so the same
	// draw in the same code would get different keys in different tests.
	var buf [20]byte
	h := fnvString(fnvOffset, funcPackage(frame.Function))
	h = fnvString(h, "/")
	h = fnvString(h, baseName(frame.File))
	h = fnvString(h, ":")
	h = fnvString(h, string(strconv.AppendInt(buf[:0], int64(frame.Line), 10)))
	return Key(h & keyMask)
}

// funcPackage returns the import path in a function's full name:
// "example.com/a/b.(*T).M.func1" gives "example.com/a/b".
func funcPackage(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}

// baseName is the last element of a slash-separated path.
func baseName(file string) string {
	return file[strings.LastIndexByte(file, '/')+1:]
}
