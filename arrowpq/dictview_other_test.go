//go:build !((386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm) && !purego)

package arrowpq

// dictionariesViewed: column copies fixed-width dictionaries out of their
// pages into values each reader keeps (column/dictview_other.go).
const dictionariesViewed = false
