package cli

// HaveDlv reports whether dstreplay debug finds delve, for tests to skip
// without it.
func HaveDlv() bool { _, ok := lookDlv(); return ok }
