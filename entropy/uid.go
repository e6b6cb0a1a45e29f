package entropy

import "fmt"

// Kind says which draw method served a value. It is the top byte of a UID,
// so a key reused by two different draw methods yields two independent uids.
type Kind uint8

// The kinds, one per draw method (Choice and Weighted share one: both record
// an index).
const (
	KindUint   Kind = iota + 1 // Uint64
	KindInt                    // Int64
	KindRange                  // IntRange
	KindBool                   // Bool
	KindChoice                 // Choice and Weighted
	KindBytes                  // Bytes
	KindStop                   // Stop
)

var kindNames = [...]string{
	KindUint:   "uint",
	KindInt:    "int",
	KindRange:  "range",
	KindBool:   "bool",
	KindChoice: "choice",
	KindBytes:  "bytes",
	KindStop:   "stop",
}

// String returns the kind's short name, or "kind(N)" for an unknown kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Key identifies a draw site. Only the low 56 bits are used; the top byte of
// a UID holds the Kind.
type Key uint64

const (
	keyBits = 56
	keyMask = 1<<keyBits - 1

	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// KeyOf returns the key for a draw site name: the 64-bit FNV-1a hash of
// name, masked to 56 bits. It does not allocate.
func KeyOf(name string) Key {
	return Key(fnvString(fnvOffset, name) & keyMask)
}

// fnvString continues an FNV-1a hash over s. Split out so the call-site
// cache can hash "function:line" without building the string.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// UID identifies the stream a value belongs to: Kind<<56 | Key.
type UID uint64

// MakeUID combines a kind and a key (of which only the low 56 bits are kept).
func MakeUID(k Kind, key Key) UID {
	return UID(uint64(k)<<keyBits | uint64(key)&keyMask)
}

// Kind returns the uid's kind (its top byte).
func (u UID) Kind() Kind { return Kind(u >> keyBits) }

// Key returns the uid's 56-bit key.
func (u UID) Key() Key { return Key(u & keyMask) }

// String returns "kind:key" with the key as 14 hex digits, e.g.
// "choice:00ab12cd34ef56".
func (u UID) String() string {
	return fmt.Sprintf("%s:%014x", u.Kind(), uint64(u.Key()))
}
