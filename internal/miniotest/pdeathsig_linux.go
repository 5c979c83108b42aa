package miniotest

import (
	"os/exec"
	"syscall"
)

// setParentDeath kills the server when the test binary dies without its
// cleanup (a timeout panic, a kill), so that no server outlives its test.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
