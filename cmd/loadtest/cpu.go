package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// cpuMeter measures the CPU time a round of load costs, from Linux's /proc:
// this process's (the real server, the floor server and the load's clients
// all run in it) and, for a PostgreSQL server on this host, the database
// server's (its postmaster and every process the postmaster started, the
// live ones and, through the postmaster's counters of its waited-for
// children, those that ended). When the load is CPU-bound, the ratio of two
// servers' CPU time per request predicts the ratio of their rates; where
// /proc is missing the meter measures nothing.
type cpuMeter struct {
	postmaster int // 0: no database process to measure
}

// cpuTimes is one reading of a cpuMeter.
type cpuTimes struct {
	process, database time.Duration
	ok                bool // the process's time was read
	hasDatabase       bool // and the database server's
}

// newCPUMeter returns a meter for this process and, when backend is the
// process id of a PostgreSQL backend running on this host, for the server
// it belongs to (its parent).
func newCPUMeter(backend int) cpuMeter {
	if backend == 0 {
		return cpuMeter{}
	}
	f, ok := procStat(backend)
	if !ok {
		return cpuMeter{}
	}
	return cpuMeter{postmaster: int(f.ppid)}
}

// read returns the CPU time used so far.
func (m cpuMeter) read() cpuTimes {
	self, ok := procStatFile("/proc/self/stat")
	if !ok {
		return cpuTimes{}
	}
	t := cpuTimes{process: self.own(), ok: true}
	if m.postmaster == 0 {
		return t
	}
	pm, ok := procStat(m.postmaster)
	if !ok {
		return t
	}
	t.database, t.hasDatabase = pm.own()+pm.children(), true
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return cpuTimes{process: t.process, ok: true}
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := procStat(pid); ok && int(f.ppid) == m.postmaster {
			t.database += f.own()
		}
	}
	return t
}

// since returns the CPU time used between r and the later reading now.
func (r cpuTimes) since(now cpuTimes) cpuTimes {
	return cpuTimes{process: now.process - r.process, database: now.database - r.database,
		ok: r.ok && now.ok, hasDatabase: r.hasDatabase && now.hasDatabase}
}

// perRequest returns the process's and the database server's CPU time per
// request in milliseconds.
func (r cpuTimes) perRequest(n int) (process, database float64) {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(n) }
	return ms(r.process), ms(r.database)
}

// statFields are the fields of /proc/<pid>/stat a cpuMeter reads.
type statFields struct {
	ppid                         int64
	utime, stime, cutime, cstime int64 // in clock ticks
}

// clockTick is the unit of the times in /proc/<pid>/stat: USER_HZ, which
// Linux fixes at 100 per second for user space on every architecture.
const clockTick = 10 * time.Millisecond

func (f statFields) own() time.Duration      { return time.Duration(f.utime+f.stime) * clockTick }
func (f statFields) children() time.Duration { return time.Duration(f.cutime+f.cstime) * clockTick }

func procStat(pid int) (statFields, bool) {
	return procStatFile("/proc/" + strconv.Itoa(pid) + "/stat")
}

// procStatFile parses a /proc/<pid>/stat file. The command name, in
// parentheses, may hold spaces and parentheses, so the fields are counted
// from after its last ')': state is the first, ppid the second, utime,
// stime, cutime and cstime the twelfth to the fifteenth.
func procStatFile(path string) (statFields, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return statFields{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statFields{}, false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 15 {
		return statFields{}, false
	}
	var v [15]int64
	for _, k := range []int{1, 11, 12, 13, 14} {
		if v[k], err = strconv.ParseInt(string(fields[k]), 10, 64); err != nil {
			return statFields{}, false
		}
	}
	return statFields{ppid: v[1], utime: v[11], stime: v[12], cutime: v[13], cstime: v[14]}, true
}
