package rewrite

// A file's writes inside a run, through package os itself.
//
// The rewrite sends the direct calls of (*os.File).Write, WriteString,
// WriteAt and Sync in rewritten code to sched/simdisk, which draws the
// disk's faults and records what a crash keeps. A write through an
// interface (a bufio.Writer, an io.Writer, fmt.Fprintf, io.Copy), or from
// code the rewrite does not carry over, reached the file unseen: no fault,
// and a crash that lost nothing it wrote. The overlay now also changes
// package os: (*File).Write, WriteAt and Sync hand over to simdisk (which
// does what it does for the direct calls, inside a run, and writes as Go
// does outside one), ReadFrom takes the generic copy inside a run (whose
// writes are Write's, not copy_file_range's), and OpenFile, Rename and
// Remove, Mkdir (which MkdirAll and MkdirTemp call) and RemoveAll hand
// over too, so that simdisk knows what a truncation, a creation, a rename
// or a removal changed, for a crash to give back. Each
// hooked function becomes a one-line wrapper of the original, renamed on
// the same line (dstWrite, ...), which simdisk calls to do as Go does.
//
// StartProcess hands over too, and (*Process).Wait says when it returns:
// a process a run starts is told so in its environment (it runs its tests
// natively: engine.ProcessEnv), and the run paces its clock to real time
// while the process may run (internal/engine/process.go). (*Process).Signal
// (which Kill calls) says what it sent: the end of a run waits for the
// processes it killed to exit.

// osSim is the overlay of package os.
var osSim = &stdHooks{
	pkg:   "os",
	need:  "file_unix.go",
	hooks: osHooks,
	added: osSimFile,
	what:  "writes through an interface (a bufio.Writer over a file) reach the file without faults, and a crash loses nothing of them",
}

// osHooks are the functions of os that change a file or a directory, go1.26.
var osHooks = []hook{
	{"File", "Write", "func (f *File) Write(b []byte) (n int, err error)",
		"if dstFile != nil { return dstFile.Write(f, b) }; return f.dstWrite(b) }; func (f *File) dstWrite(b []byte) (n int, err error) {"},
	{"File", "WriteAt", "func (f *File) WriteAt(b []byte, off int64) (n int, err error)",
		"if dstFile != nil { return dstFile.WriteAt(f, b, off) }; return f.dstWriteAt(b, off) }; func (f *File) dstWriteAt(b []byte, off int64) (n int, err error) {"},
	{"File", "Sync", "func (f *File) Sync() error",
		"if dstFile != nil { return dstFile.Sync(f) }; return f.dstSync() }; func (f *File) dstSync() error {"},
	{"File", "ReadFrom", "func (f *File) ReadFrom(r io.Reader) (n int64, err error)",
		`if dstFile != nil && dstFile.InRun() { if err := f.checkValid("write"); err != nil { return 0, err }; return genericReadFrom(f, r) };`},
	{"", "OpenFile", "func OpenFile(name string, flag int, perm FileMode) (*File, error)",
		"if dstFile != nil { return dstFile.OpenFile(name, flag, perm) }; return dstOpenFile(name, flag, perm) }; func dstOpenFile(name string, flag int, perm FileMode) (*File, error) {"},
	{"", "Rename", "func Rename(oldpath, newpath string) error",
		"if dstFile != nil { return dstFile.Rename(oldpath, newpath) }; return dstRename(oldpath, newpath) }; func dstRename(oldpath, newpath string) error {"},
	{"", "Remove", "func Remove(name string) error",
		"if dstFile != nil { return dstFile.Remove(name) }; return dstRemove(name) }; func dstRemove(name string) error {"},
	{"", "Mkdir", "func Mkdir(name string, perm FileMode) error",
		"if dstFile != nil { return dstFile.Mkdir(name, perm) }; return dstMkdir(name, perm) }; func dstMkdir(name string, perm FileMode) error {"},
	{"", "RemoveAll", "func RemoveAll(path string) error",
		"if dstFile != nil { return dstFile.RemoveAll(path) }; return dstRemoveAll(path) }; func dstRemoveAll(path string) error {"},
	{"", "StartProcess", "func StartProcess(name string, argv []string, attr *ProcAttr) (*Process, error)",
		"if dstFile != nil { return dstFile.StartProcess(name, argv, attr) }; return dstStartProcess(name, argv, attr) }; func dstStartProcess(name string, argv []string, attr *ProcAttr) (*Process, error) {"},
	{"Process", "Wait", "func (p *Process) Wait() (*ProcessState, error)",
		"if p != nil && dstFile != nil { defer dstFile.Waited(p.Pid) };"},
	{"Process", "Signal", "func (p *Process) Signal(sig Signal) error",
		"if p != nil && dstFile != nil { defer dstFile.Signaled(p.Pid, sig) };"},
}

// osSimFile is the file the overlay adds to os.
const osSimFile = `package os

// Added by dstreplay test (internal/rewrite/ossim.go): a file's writes
// and syncs hand over to sched/simdisk, which sets dstFile.

// dstFileHook is what sched/simdisk does for a file's writes and syncs.
type dstFileHook interface {
	Write(f *File, b []byte) (int, error)
	WriteAt(f *File, b []byte, off int64) (int, error)
	Sync(f *File) error
	InRun() bool
	OpenFile(name string, flag int, perm FileMode) (*File, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	Mkdir(name string, perm FileMode) error
	RemoveAll(path string) error
	StartProcess(name string, argv []string, attr *ProcAttr) (*Process, error)
	Waited(pid int)
	Signaled(pid int, sig Signal)
}

// dstFile is sched/simdisk's, set when it starts.
var dstFile dstFileHook

// DstreplayFileHook sets dstFile: h is sched/simdisk's (any *File will do
// as the receiver, a nil one too).
func (f *File) DstreplayFileHook(h any) { dstFile = h.(dstFileHook) }

// DstreplayWrite is Go's own Write.
func (f *File) DstreplayWrite(b []byte) (int, error) { return f.dstWrite(b) }

// DstreplayWriteAt is Go's own WriteAt.
func (f *File) DstreplayWriteAt(b []byte, off int64) (int, error) { return f.dstWriteAt(b, off) }

// DstreplaySync is Go's own Sync.
func (f *File) DstreplaySync() error { return f.dstSync() }

// DstreplayOpenFile is Go's own OpenFile (any *File will do as the
// receiver, a nil one too).
func (f *File) DstreplayOpenFile(name string, flag int, perm FileMode) (*File, error) {
	return dstOpenFile(name, flag, perm)
}

// DstreplayRename is Go's own Rename.
func (f *File) DstreplayRename(oldpath, newpath string) error { return dstRename(oldpath, newpath) }

// DstreplayRemove is Go's own Remove.
func (f *File) DstreplayRemove(name string) error { return dstRemove(name) }

// DstreplayMkdir is Go's own Mkdir.
func (f *File) DstreplayMkdir(name string, perm FileMode) error { return dstMkdir(name, perm) }

// DstreplayRemoveAll is Go's own RemoveAll.
func (f *File) DstreplayRemoveAll(path string) error { return dstRemoveAll(path) }

// DstreplayStartProcess is Go's own StartProcess.
func (f *File) DstreplayStartProcess(name string, argv []string, attr *ProcAttr) (*Process, error) {
	return dstStartProcess(name, argv, attr)
}
`
