package workspace

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// BenchmarkSixteenRedemptionsOfTheLargestFile runs 16 redemptions of a file
// of the default largest size (50 MiB) at once, in this process over the
// in-memory KV store, and reports the peak heap above the baseline (which
// already holds the stored file) against cap x RedeemSlots. Run with
//
//	go test -run '^$' -bench SixteenRedemptions -benchtime 1x ./server/workspace/
func BenchmarkSixteenRedemptionsOfTheLargestFile(b *testing.B) {
	const fileCap = 50 << 20
	const concurrent = 16
	limits := Limits{QuotaBytes: 200 << 20, MaxFileBytes: fileCap}
	s := New(mattermost.NewBytesKV(&pluginapi.MemoryStore{}), func() Limits { return limits })
	up, err := s.RequestUpload(alice, "large.bin", fileCap, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Write(context.Background(), alice, "large.bin", bytes.NewReader(make([]byte, fileCap)), WriteOptions{MaxSize: fileCap}); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		for range concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.RedeemStream(context.Background(), alice, up.Handle, func(f RedeemedFile, r io.Reader) error {
					time.Sleep(50 * time.Millisecond) // the post's upload to Mattermost
					_, err := io.Copy(io.Discard, r)
					return err
				})
				if err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	close(stop)
	above := float64(peak.Load()-min(peak.Load(), base.HeapInuse)) / (1 << 20)
	b.ReportMetric(above, "peak-heap-above-baseline-MiB")
	b.ReportMetric(float64(fileCap*RedeemSlots)/(1<<20), "cap-x-slots-MiB")
	b.ReportMetric(float64(vmHWM())/(1<<10), "process-peak-rss-MiB")
}

// vmHWM is this process's peak resident set, in KiB, from /proc.
func vmHWM() int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
