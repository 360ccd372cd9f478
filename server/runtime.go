package main

import "runtime/debug"

// validateOutputEnv, set to 1 in Mattermost's environment (the e2e harness
// sets it), has every answer checked against its tool's output schema: see
// transport.Options.ValidateOutput.
const validateOutputEnv = "MCP_PLUGIN_VALIDATE_OUTPUT"

// gcPercent: the plugin's live heap at rest is small (about 30 MiB) and the
// soft memory limit (the budget for reading files + 128 MiB, set by the
// first read) caps the heap whatever this says, so collecting at three
// times the live heap rather than twice costs little memory and cuts the
// collector's share of a call (about a sixth of the plugin's processor
// under load) by about half.
const gcPercent = 200

func init() { debug.SetGCPercent(gcPercent) }
