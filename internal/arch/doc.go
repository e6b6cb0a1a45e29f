// Package arch holds no code: its tests keep the module's layers apart.
// They check that no package imports one of a higher layer, and that the
// shims a production program links pull in no test harness, no flags and
// no trace compression. ARCHITECTURE.md describes the layers.
package arch
