// Package pluginbuild builds a server binary as `make dist` does (its flags,
// tags and platforms, which a test holds to the Makefile's), for the
// commands that weigh one: binweight and bundlefloor.
package pluginbuild

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Tags are the Makefile's BUILD_TAGS.
const Tags = "grpcnotrace"

// Platforms are the Makefile's PLATFORMS, the ones the bundle carries.
var Platforms = []string{"linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"}

// Build builds pkg into out for platform ("" for this machine's),
// stripped as the bundle's binaries are or with its symbols kept.
func Build(pkg, platform, out string, stripped bool) error {
	args := []string{"build", "-trimpath", "-tags", Tags, "-o", out}
	if stripped {
		args = append(args, "-ldflags", "-s -w")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if platform != "" {
		goos, goarch, _ := strings.Cut(platform, "-")
		cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH="+goarch)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s for %s: %w", pkg, platformName(platform), err)
	}
	return nil
}

func platformName(platform string) string {
	if platform == "" {
		return "this machine"
	}
	return platform
}
