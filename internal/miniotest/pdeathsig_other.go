//go:build !linux

package miniotest

import "os/exec"

func setParentDeath(cmd *exec.Cmd) {}
