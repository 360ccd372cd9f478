package pluginproc

import (
	"crypto/sha256"
	"os"
	"testing"
)

func TestAProcessesParentAndProcessorTimeAreReadFromItsStat(t *testing.T) {
	if got := parent(os.Getpid()); got != os.Getppid() {
		t.Fatalf("parent %d, want %d", got, os.Getppid())
	}
	before := CPUSeconds(os.Getpid())
	sum := sha256.Sum256(nil)
	for i := 0; CPUSeconds(os.Getpid()) < before+0.05; i++ { // five ticks of work
		if i == 1<<24 {
			t.Fatalf("the processor time stayed at %.2f s through %d hashes", before, i)
		}
		for range 100 {
			sum = sha256.Sum256(sum[:])
		}
	}
	if parent(-1) != 0 || CPUSeconds(-1) != 0 {
		t.Fatal("a process that is not there has a parent or processor time")
	}
}
