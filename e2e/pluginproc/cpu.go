package pluginproc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// CPUSeconds is the processor time a process has used, user and system,
// from /proc/<pid>/stat (in clock ticks of 1/100 s, Linux's USER_HZ); 0 when
// it is gone.
func CPUSeconds(pid int) float64 {
	// utime and stime are the 12th and 13th fields after the command.
	fields := statFields(pid)
	if len(fields) < 13 {
		return 0
	}
	user, _ := strconv.ParseFloat(fields[11], 64)
	system, _ := strconv.ParseFloat(fields[12], 64)
	return (user + system) / 100
}

// Processor is the processor time used so far, in seconds, by each part of
// a harness server and by this process: where a call's cost goes when they
// all share the machine's cores.
type Processor struct {
	// Plugins is every node's plugin process, Mattermost every node,
	// PostgreSQL its server and every backend of it, Self this process.
	Plugins, Mattermost, PostgreSQL, Self float64
}

// ProcessorNow reads Processor for mm: its nodes and PostgreSQL (PIDs,
// PostgreSQL last), their children (the plugins of the nodes, the backends
// of PostgreSQL) and this process.
func ProcessorNow(mm *harness.Server) Processor {
	pids := mm.PIDs()
	var p Processor
	if len(pids) == 0 {
		return p
	}
	nodes, pg := pids[:len(pids)-1], pids[len(pids)-1]
	isNode := map[int]bool{}
	for _, n := range nodes {
		isNode[n] = true
		p.Mattermost += CPUSeconds(n)
	}
	p.PostgreSQL = CPUSeconds(pg)
	if entries, err := os.ReadDir("/proc"); err == nil {
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			switch parent := parent(pid); {
			case parent == pg:
				p.PostgreSQL += CPUSeconds(pid)
			case isNode[parent]:
				if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(cmd), "plugin-linux-amd64") {
					p.Plugins += CPUSeconds(pid)
				}
			}
		}
	}
	var self syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) == nil {
		p.Self = float64(self.Utime.Sec+self.Stime.Sec) + float64(self.Utime.Usec+self.Stime.Usec)/1e6
	}
	return p
}

// Since is the processor time used from an earlier reading to p.
func (p Processor) Since(earlier Processor) Processor {
	return Processor{Plugins: p.Plugins - earlier.Plugins, Mattermost: p.Mattermost - earlier.Mattermost,
		PostgreSQL: p.PostgreSQL - earlier.PostgreSQL, Self: p.Self - earlier.Self}
}
