package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestProcStatFile: the fields are counted after the command name's last
// parenthesis, so a name with spaces and parentheses does not shift them.
func TestProcStatFile(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "stat")
	line := "4242 (post gres) (x)) S 77 4242 4242 0 -1 4194560 100 0 0 0 1234 567 89 10 20 0 1 0 100 1000 10\n"
	is.NoErr(os.WriteFile(path, []byte(line), 0o600))
	f, ok := procStatFile(path)
	is.True(ok)
	is.Equal(f, statFields{ppid: 77, utime: 1234, stime: 567, cutime: 89, cstime: 10})
	is.Equal(f.own(), 18010*time.Millisecond)
	is.Equal(f.children(), 990*time.Millisecond)

	is.NoErr(os.WriteFile(path, []byte("4242 (cut) S 77 1 2\n"), 0o600))
	_, ok = procStatFile(path)
	is.True(!ok) // too few fields
}

// TestCPUMeter: on Linux the meter reads this process's CPU time, which
// grows with work; a process id that is not running gives no database.
func TestCPUMeter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the meter reads Linux's /proc")
	}
	is := is.New(t)
	is.Equal(newCPUMeter(0).postmaster, 0)
	// The test's parent stands in for a database server: this process is
	// one of its children.
	m := newCPUMeter(os.Getpid())
	is.Equal(m.postmaster, os.Getppid())
	start := m.read()
	is.True(start.ok && start.hasDatabase)
	// Work until the meter shows 50ms more CPU time for this process (a
	// meter that does not move fails at the deadline).
	var used cpuTimes
	for deadline := time.Now().Add(20 * time.Second); used.process < 50*time.Millisecond; used = start.since(m.read()) {
		if time.Now().After(deadline) {
			t.Fatalf("the process's CPU time did not grow: %v", used.process)
		}
		for busy := time.Now().Add(time.Millisecond); time.Now().Before(busy); {
		}
	}
	is.True(used.ok && used.hasDatabase)
	// The parent's children include this process; its time is read a
	// little after this process's own, at a clock tick's precision.
	is.True(used.database >= used.process-3*clockTick)
	process, _ := used.perRequest(2)
	is.Equal(process, float64(used.process)/float64(time.Millisecond)/2)
}
