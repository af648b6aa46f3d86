//go:build windows

package exec

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// killExitCode is the exit code TerminateJobObject gives the processes of
// a killed tree, the code a shell reports for SIGKILL.
const killExitCode = 137

// procOS is the Windows state of a Process: the job object holding the
// tree, and the shell's process id, which is also the id of the console
// process group it leads.
type procOS struct {
	job windows.Handle
	pid uint32
	// breakErr is why the last CTRL_BREAK_EVENT could not be sent (then
	// the job was terminated instead), or nil.
	breakErr error
}

// startOS starts the shell suspended in a new console process group,
// assigns it to a new job object that kills its processes when its last
// handle closes (when vx exits, at the latest), then lets it run: no
// process of the task can start outside the job.
func (p *Process) startOS(spec Spec) error {
	argv := p.cmd.Args
	prog := argv[0]
	if strings.ContainsAny(prog, " \t") {
		prog = `"` + prog + `"`
	}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{
		CmdLine:       strings.Join(append([]string{prog}, argv[1:]...), " "),
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED,
	}
	job, err := newKillOnCloseJob()
	if err != nil {
		return err
	}
	if err := p.cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return err
	}
	p.os = procOS{job: job, pid: uint32(p.cmd.Process.Pid)}
	if err := assignJob(job, p.os.pid); err != nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		windows.CloseHandle(job)
		return err
	}
	if err := resumeProcess(p.os.pid); err != nil {
		windows.TerminateJobObject(job, killExitCode)
		p.cmd.Wait()
		windows.CloseHandle(job)
		return err
	}
	return nil
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("configure job object: %w", err)
	}
	return job, nil
}

func assignJob(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("assign process %d to job object: %w", pid, err)
	}
	return nil
}

// resumeProcess resumes the threads of a process started suspended (only
// its main thread exists).
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("resume process %d: no thread found", pid)
	}
	return nil
}

func (p *Process) leaderExited() {}

// signalOS is called with p.mu held.
func (p *Process) signalOS(sig os.Signal) error {
	switch sig {
	case os.Kill:
		p.killed = true
		return p.killOS()
	case os.Interrupt, syscall.SIGTERM:
		p.os.breakErr = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, p.os.pid)
		if p.os.breakErr != nil {
			p.killed = true
			return p.killOS()
		}
		return nil
	}
	return fmt.Errorf("exec: signal %v: not supported on Windows", sig)
}

func (p *Process) killOS() error {
	if err := windows.TerminateJobObject(p.os.job, killExitCode); err != nil {
		return fmt.Errorf("exec: terminate job of process %d: %w", p.os.pid, err)
	}
	return nil
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// treeAlive reports whether the job still holds a running process. If the
// job cannot be queried it counts as alive, so Wait ends it.
func (p *Process) treeAlive() bool {
	var info jobAccounting
	err := windows.QueryInformationJobObject(p.os.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err != nil || info.ActiveProcesses > 0
}

// terminateTree asks the processes left in the job to stop with
// CTRL_BREAK_EVENT, or ends them at once when there is no console to send
// it through.
func (p *Process) terminateTree() {
	if windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, p.os.pid) != nil {
		windows.TerminateJobObject(p.os.job, killExitCode)
	}
}

func (p *Process) killTree() { windows.TerminateJobObject(p.os.job, killExitCode) }

// release closes the job; anything still in it is killed by the system.
func (p *Process) release() {
	if p.os.job != 0 {
		windows.CloseHandle(p.os.job)
	}
}

func exitResult(state *os.ProcessState, killed bool) Result {
	code := uint32(state.ExitCode())
	switch {
	case killed && code == killExitCode:
		return Result{ExitCode: 137, Signal: "SIGKILL"}
	case code == uint32(windows.STATUS_CONTROL_C_EXIT):
		return Result{ExitCode: 130, Signal: "SIGINT"}
	}
	return Result{ExitCode: int(code)}
}

// IsBrokenPipe reports whether err is a write to a pipe whose reader is
// gone (ERROR_NO_DATA, ERROR_BROKEN_PIPE).
func IsBrokenPipe(err error) bool {
	return errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE) || errors.Is(err, syscall.EPIPE)
}

// pipeHolders finds nothing on Windows: no process of a task can leave its
// job object, which Wait has emptied by then.
func pipeHolders([]*os.File) []int { return nil }

func endStrays([]int, time.Duration) {}
