//go:build (386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm) && !purego

package arrowpq

// dictionariesViewed: column uses fixed-width dictionaries where they were
// decompressed (column/dictview_le.go), in a buffer a reader can release.
const dictionariesViewed = true
