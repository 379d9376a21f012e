package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/stream"
)

// envMap is a fake environment.
func envMap(m map[string]string) env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dir      string
		wantCode int
		want     []string
	}{
		{"demo agents", "../../demo", 0, []string{"definitions OK"}},
		{"broken", "../../definitions/testdata/broken", 1, []string{
			"b_shop.yaml:", "c_copy.yaml:", "d_nodesc.yaml:", // duplicate id, unknown sub-agent, missing description
		}},
		{"missing folder", "./no-such-folder", 1, []string{"no agents folder no-such-folder", "pass --agents"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), []string{"validate", "--agents", tc.dir}, &out, &errOut, envMap(nil))
			if code != tc.wantCode {
				t.Fatalf("exit = %d, want %d; stdout %q stderr %q", code, tc.wantCode, out.String(), errOut.String())
			}
			all := out.String() + errOut.String()
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

// With no ./agents folder validate checks the built-in demo agents, which serve would use.
func TestValidateWithoutAgentsFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"validate"}, &out, &errOut, envMap(nil)); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "built-in demo agents: 5 definitions OK") {
		t.Errorf("stdout = %q; want the count under the built-in agents' name", out.String())
	}
	if strings.Contains(out.String(), "./agents:") {
		t.Errorf("stdout = %q; names ./agents, which does not exist", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"frobnicate"}, {"token"}, {"token", "--sub", "bob", "--ttl", "-1h"}, {"serve", "extra"}} {
		var out, errOut bytes.Buffer
		if code := run(t.Context(), args, &out, &errOut, envMap(nil)); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"serve", "--help"}, &out, &errOut, envMap(nil)); code != 0 || !strings.Contains(errOut.String(), "-addr") {
		t.Errorf("serve --help = %d, %q", code, errOut.String())
	}
}

// The demo CCS serves its users' data to whoever reaches it, so by default it listens on this
// machine only, as dev-mode serve does.
func TestCCSDemoListensOnLoopbackByDefault(t *testing.T) {
	var out, errOut bytes.Buffer
	run(t.Context(), []string{"ccs-demo", "--help"}, &out, &errOut, envMap(nil))
	if !strings.Contains(errOut.String(), `(default "127.0.0.1:8081")`) {
		t.Errorf("ccs-demo --help = %q, want --addr to default to 127.0.0.1:8081", errOut.String())
	}
}

// A bad flag is a usage error: exit 2, its message printed once, whatever the command.
func TestUnknownFlags(t *testing.T) {
	for _, cmd := range []string{"serve", "validate", "token", "ccs-demo", "eval"} {
		var out, errOut bytes.Buffer
		code := run(t.Context(), []string{cmd, "--bogus"}, &out, &errOut, envMap(nil))
		if code != 2 {
			t.Errorf("%s --bogus: exit %d, want 2", cmd, code)
		}
		if n := strings.Count(errOut.String(), "flag provided but not defined"); n != 1 {
			t.Errorf("%s --bogus: message printed %d times:\n%s", cmd, n, errOut.String())
		}
	}
}

func TestEvalCommandLine(t *testing.T) {
	dead := "http://" + deadAddr(t)
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"min accuracy above 1", []string{"--min-accuracy", "95"}, 2, "between 0 and 1"},
		{"dead target", []string{"--target", dead}, 1, "does not answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"eval", "--dataset", "../../evals/testdata/datasets/no-route.yaml"}, tc.args...)
			code := run(t.Context(), args, &out, &errOut, envMap(nil))
			if code != tc.wantCode || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), tc.wantCode, tc.want)
			}
		})
	}
}

// A judge model that fails on every call fails the run (exit 1) and says which, instead of
// printing "judge: failed" and passing.
func TestEvalJudgeThatAlwaysFails(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "switchboard.yaml")
	body := "models:\n  judge: {provider: openai, model: m, base_url: \"http://" + deadAddr(t) + "/v1\", api_key_env: JUDGE_KEY}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"eval", "--config", cfg, "--dataset", "../../evals/testdata/datasets/no-route.yaml",
		"--agents", "../../demo", "--no-coverage-gate", "--judge-model", "judge"}, &out, &errOut, envMap(map[string]string{"JUDGE_KEY": "k"}))
	if code != 1 || !strings.Contains(errOut.String(), `judge model "judge" failed`) || !strings.Contains(errOut.String(), "models: in "+cfg) {
		t.Errorf("exit %d, stderr %q; want 1, the judge named and the config it was read from", code, errOut.String())
	}
}

// The offline model cannot judge: asking it to is refused before the run, saying so, with or
// without a config file, and never sending the reader to a --config that was not given.
func TestEvalJudgeOfflineModel(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "switchboard.yaml")
	if err := os.WriteFile(cfg, []byte("models:\n  fast: {provider: offline}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		judge string
		want  string
	}{
		{"no config", nil, "default", "none was given"},
		{"a config", []string{"--config", cfg}, "fast", cfg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"eval", "--dataset", "../../evals/testdata/datasets/no-route.yaml",
				"--agents", "../../demo", "--no-coverage-gate", "--judge-model", tc.judge}, tc.args...)
			code := run(t.Context(), args, &out, &errOut, envMap(nil))
			msg := errOut.String()
			if code != 2 || !strings.Contains(msg, "offline model, which cannot judge") || !strings.Contains(msg, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2, the offline model refused and %q", code, msg, tc.want)
			}
		})
	}
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

const testSecret = "0123456789abcdef0123456789abcdef-test"

func TestTokenPrintsOnlyTheToken(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"token", "--sub", "bob"}, &out, &errOut, envMap(map[string]string{devSecretEnv: testSecret}))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	tok := strings.TrimSpace(out.String())
	if strings.Count(tok, ".") != 2 || strings.ContainsAny(tok, " \n") {
		t.Errorf("stdout = %q, want one JWT", out.String())
	}
	var short bytes.Buffer
	if code := run(t.Context(), []string{"token", "--sub", "bob"}, &out, &short, envMap(map[string]string{devSecretEnv: "short"})); code != 1 {
		t.Errorf("short secret: exit %d, want 1", code)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serve pointed at `switchboard ccs-demo` over real HTTP: a minted token works against the
// server, and a two-intent turn completes using the remote CCS.
func TestServeWithRemoteCCSDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ccsAddr := freeAddr(t)
	ccsDone := make(chan int, 1)
	go func() {
		var out, errOut bytes.Buffer
		ccsDone <- run(ctx, []string{"ccs-demo", "--addr", ccsAddr}, &out, &errOut, envMap(nil))
	}()
	waitHTTP(t, "http://"+ccsAddr+"/v1/enrich/points.balance")

	environ := envMap(map[string]string{
		devSecretEnv:               testSecret,
		"SWITCHBOARD_CCS_URL":      "http://" + ccsAddr,
		"SWITCHBOARD_STORE_DRIVER": "memory",
	})
	ready := make(chan string, 1)
	served := make(chan error, 1)
	var serveErr bytes.Buffer
	go func() {
		served <- serve(ctx, serveFlags{addr: "127.0.0.1:0", agents: "../../demo"}, &bytes.Buffer{}, &serveErr, environ, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-served:
		t.Fatalf("serve ended: %v\n%s", err, serveErr.String())
	}

	var tokOut, tokErr bytes.Buffer
	if code := run(ctx, []string{"token", "--sub", "alice"}, &tokOut, &tokErr, environ); code != 0 {
		t.Fatalf("token: %s", tokErr.String())
	}
	body := strings.NewReader(`{"message":"any deals on running shoes? and how many points do I have?"}`)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/turns", body)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(tokOut.String()))
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var outcome, reply string
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		var data map[string]any
		_ = json.Unmarshal(ev.Data, &data)
		switch ev.Name {
		case "reply.completed":
			reply = fmt.Sprint(data["text"])
		case "turn.completed":
			outcome = fmt.Sprint(data["outcome"])
		}
		if ev.Name == "turn.completed" {
			break
		}
	}
	if outcome != "ok" || !strings.Contains(strings.ToLower(reply), "points") {
		t.Errorf("outcome %q, reply %q; want ok with points", outcome, reply)
	}

	cancel() // graceful shutdown of both
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("serve did not shut down")
	}
	if code := <-ccsDone; code != 0 {
		t.Errorf("ccs-demo exit %d", code)
	}
}

// waitHTTP polls until something answers at url (any status).
func waitHTTP(t *testing.T, url string) {
	t.Helper()
	for range 200 {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(10 * time.Millisecond) // waiting for a listener, not ordering work
	}
	t.Fatalf("nothing answered at %s", url)
}

// validate warns, without failing, about a sub-agent nothing asks and an enricher nothing
// answers; both warnings go once the agent is listed and its fixture dropped in.
func TestValidateWarns(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"concierge.yaml", "shop.yaml", "rewards.yaml", "support.yaml", "travel.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../demo", name))
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(dir, name), string(b))
	}
	writeTestFile(t, filepath.Join(dir, "garden.yaml"), `kind: sub_agent
id: garden
name: Garden
description: Answers gardening questions about the user's plants.
tools:
  - name: my_plants
    enricher: garden.plants
    domain_type: plant_list
    description: The plants the user has registered
`)
	validate := func() string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(t.Context(), []string{"validate", "--agents", dir}, &out, &errOut, envMap(nil)); code != 0 {
			t.Fatalf("validate = %d, want 0 (warnings do not fail); %s%s", code, out.String(), errOut.String())
		}
		return out.String()
	}
	unlisted, unanswered := `sub-agent "garden" is in no orchestrator's sub_agents`, `enricher "garden.plants" has no fixture`
	if out := validate(); !strings.Contains(out, unlisted) || !strings.Contains(out, unanswered) {
		t.Errorf("validate output lacks a warning:\n%s", out)
	}

	concierge := filepath.Join(dir, "concierge.yaml")
	b, _ := os.ReadFile(concierge)
	writeTestFile(t, concierge, strings.Replace(string(b), "sub_agents: [shop, rewards, support, travel]", "sub_agents: [shop, rewards, support, travel, garden]", 1))
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "fixtures", "garden.plants.json"), `{"domain_type": "plant_list", "payload": {"plants": []}}`)
	if out := validate(); strings.Contains(out, "warning") {
		t.Errorf("validate still warns:\n%s", out)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestInitWritesTheDemoOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents")
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"init", dir}, &out, &errOut, envMap(nil)); code != 0 {
		t.Fatalf("init = %d, stderr %s", code, errOut.String())
	}
	if code := run(t.Context(), []string{"validate", "--agents", dir}, &out, &errOut, envMap(nil)); code != 0 {
		t.Errorf("validate of the folder init wrote = %d, stderr %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(t.Context(), []string{"init", dir}, &out, &errOut, envMap(nil)); code == 0 || !strings.Contains(errOut.String(), "exists already") {
		t.Errorf("second init = %d, stderr %q; want a refusal naming the existing file", code, errOut.String())
	}
}

// init into a path that is a file said "stat FILE/concierge.yaml: not a directory"; it says
// what is wrong with the path now.
func TestInitIntoAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "agents")
	writeTestFile(t, file, "")
	var out, errOut bytes.Buffer
	want := file + " is a file: init writes the definitions into a folder"
	if code := run(t.Context(), []string{"init", file}, &out, &errOut, envMap(nil)); code == 0 || !strings.Contains(errOut.String(), want) {
		t.Errorf("init into a file = %d, stderr %q; want a failure saying %q", code, errOut.String(), want)
	}
}

// init names the serve command that serves what it wrote: plain `switchboard serve` for
// ./agents, which serve reads by default, and --agents for any other folder.
func TestInitSaysHowToServe(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init"}, "serve them with: switchboard serve\n"},
		{[]string{"init", "other"}, "serve them with: switchboard serve --agents other\n"},
	} {
		var out, errOut bytes.Buffer
		if code := run(t.Context(), tc.args, &out, &errOut, envMap(nil)); code != 0 || !strings.HasSuffix(out.String(), tc.want) {
			t.Errorf("run(%q) = %d, stdout %q; want 0 and a last line %q (stderr %q)", tc.args, code, out.String(), tc.want, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"init", "agents"}, &out, &errOut, envMap(nil)); code == 0 {
		t.Errorf("init agents after init = 0, stdout %q; want a refusal", out.String())
	}
}

// --help is a request, not a mistake: every command prints its usage on stderr, nothing on
// stdout, and exits 0.
func TestHelpOfEveryCommand(t *testing.T) {
	for _, cmd := range []string{"serve", "init", "validate", "token", "ccs-demo", "eval", "version"} {
		for _, flag := range []string{"--help", "-h"} {
			var out, errOut bytes.Buffer
			code := run(t.Context(), []string{cmd, flag}, &out, &errOut, envMap(nil))
			if code != 0 || out.Len() != 0 || !strings.Contains(errOut.String(), "Usage: switchboard "+cmd) {
				t.Errorf("%s %s = %d, stdout %q, stderr %q; want 0 and the usage on stderr", cmd, flag, code, out.String(), errOut.String())
			}
		}
	}
}

// The overview "switchboard --help" prints is where a reader first looks for a flag: each
// command's line there names every flag the command accepts.
func TestUsageNamesEveryFlag(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`)
	for _, cmd := range []string{"serve", "validate", "token", "ccs-demo", "eval", "audit"} {
		var out, errOut bytes.Buffer
		run(t.Context(), []string{cmd, "--help"}, &out, &errOut, envMap(nil))
		section := usageSection(usage, cmd)
		if section == "" {
			t.Fatalf("usage has no line for %s:\n%s", cmd, usage)
		}
		for _, m := range flagLine.FindAllStringSubmatch(errOut.String(), -1) {
			if !strings.Contains(section, "--"+m[1]+" ") && !strings.Contains(section, "--"+m[1]+"]") && !strings.Contains(section, "--"+m[1]+"=") {
				t.Errorf("usage of %s = %q, want it to name --%s", cmd, section, m[1])
			}
		}
	}
}

// usageSection is the part of text about cmd: its "switchboard cmd" line and the indented
// lines continuing it.
func usageSection(text, cmd string) string {
	var b strings.Builder
	in := false
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.HasPrefix(line, "  switchboard "+cmd+" "):
			in = true
		case in && strings.HasPrefix(line, "      "):
		default:
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"version"}, 0, "switchboard dev\n"},
		{[]string{"--version"}, 0, "switchboard dev\n"},
		{[]string{"version", "extra"}, 2, ""},
		{[]string{"version", "--bogus"}, 2, ""},
	} {
		var out, errOut bytes.Buffer
		if code := run(t.Context(), tc.args, &out, &errOut, envMap(nil)); code != tc.wantCode || out.String() != tc.wantOut {
			t.Errorf("run(%q) = %d, stdout %q; want %d, %q (stderr %q)", tc.args, code, out.String(), tc.wantCode, tc.wantOut, errOut.String())
		}
	}
}

func TestDescribeVersion(t *testing.T) {
	vcs := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	for _, tc := range []struct {
		name    string
		version string
		info    *debug.BuildInfo
		want    string
	}{
		{"set at build time", "v1.2.3", vcs("vcs.revision", "2d4b260c555a5a2a1bf69b266156c176fbdd20fe"), "v1.2.3"},
		{"no build info", "dev", nil, "dev"},
		{"built outside git", "dev", vcs(), "dev"},
		{"clean checkout", "dev", vcs("vcs.revision", "2d4b260c555a5a2a1bf69b266156c176fbdd20fe", "vcs.modified", "false"), "dev (commit 2d4b260c555a)"},
		{"edited checkout", "dev", vcs("vcs.revision", "2d4b260c555a5a2a1bf69b266156c176fbdd20fe", "vcs.modified", "true"), "dev (commit 2d4b260c555a, with local changes)"},
	} {
		if got := describeVersion(tc.version, tc.info); got != tc.want {
			t.Errorf("%s: describeVersion(%q) = %q, want %q", tc.name, tc.version, got, tc.want)
		}
	}
}

// A definition naming a model alias the config lacks fails validate, as it would fail serve.
func TestValidateRefusesUnknownModelAlias(t *testing.T) {
	dir := t.TempDir()
	if code := run(t.Context(), []string{"init", dir}, io.Discard, io.Discard, envMap(nil)); code != 0 {
		t.Fatal("init failed")
	}
	shop := filepath.Join(dir, "shop.yaml")
	b, err := os.ReadFile(shop)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shop, []byte(strings.Replace(string(b), "model: default", "model: fast", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "model: default") {
		t.Fatal("the demo's shop.yaml has no 'model: default' line to change")
	}
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"validate", "--agents", dir}, &out, &errOut, envMap(nil))
	if code != 1 || !strings.Contains(out.String(), `shop.yaml:`) || !strings.Contains(out.String(), `model "fast"`) {
		t.Errorf("validate = %d, stdout %q; want 1 and the shop.yaml line naming model \"fast\"", code, out.String())
	}
}

// validate --config said OK for a models: section serve refuses (an unknown provider, a
// model missing); it checks it as serve does, but for the keys, which it must not need.
func TestValidateChecksModelConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "switchboard.yaml")
	writeTestFile(t, cfg, "models:\n  default: {provider: offline}\n  fast: {provider: nope}\n  big: {provider: openai, api_key_env: NO_SUCH_KEY}\n")
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"validate", "--agents", "../../demo", "--config", cfg}, &out, &errOut, envMap(nil))
	for _, want := range []string{
		cfg + `: invalid model config: model "big": model is required for provider openai`,
		cfg + `: invalid model config: model "fast": unknown provider "nope"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("validate stdout %q; want %q", out.String(), want)
		}
	}
	if code != 1 || strings.Contains(out.String(), "OK") || strings.Contains(out.String(), "API key") {
		t.Errorf("validate = %d, stdout %q; want 1, no OK and no word about keys", code, out.String())
	}
	if want := "2 problem(s) in " + cfg; !strings.Contains(errOut.String(), want) {
		t.Errorf("validate stderr %q; want %q", errOut.String(), want)
	}
}

// A flag value a command cannot use is a usage error (exit 2) naming the flag, before
// anything runs; it used to be ignored or to fail only after the work was done.
func TestBadFlagValues(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "report")
	writeTestFile(t, file, "not a folder")
	// A small dataset of the demo agents, with no gate that could fail it: an eval that
	// accepts its flags passes (exit 0).
	evalArgs := func(extra ...string) []string {
		return append([]string{"eval", "--agents", "../../demo", "--dataset", "../../evals/testdata/datasets/no-route.yaml", "--no-coverage-gate", "--min-accuracy", "0"}, extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"serve log format", []string{"serve", "--addr", "127.0.0.1:0", "--log-format", "xml"}, `--log-format is text or json, got "xml"`},
		{"eval concurrency", evalArgs("--concurrency", "0"), "--concurrency must be at least 1, got 0"},
		{"eval negative concurrency", evalArgs("--concurrency", "-2"), "--concurrency must be at least 1, got -2"},
		{"eval regression without baseline", evalArgs("--fail-on-regression"), "--fail-on-regression needs --baseline"},
		{"eval report is a file", evalArgs("--report", file), "--report " + file + " is a file"},
		{"eval suggest is a folder", evalArgs("--suggest", dir), "--suggest " + dir + " is a folder"},
		{"eval judge not a model", evalArgs("--judge-model", "nope"), `--judge-model "nope" is not a model alias under models: in a config file passed with --config (none was given); known: default`},
		{"token arguments", []string{"token", "--sub", "alice", "bob"}, `token takes no arguments, got ["bob"]`},
		{"ccs-demo arguments", []string{"ccs-demo", "--addr", "127.0.0.1:0", "fixtures"}, `ccs-demo takes no arguments, got ["fixtures"]`},
		// --agents naming a file failed, in serve, deep in the assembly with "ccsdemo: fixtures:
		// open fixtures: not a directory"; an empty one with "Options.Agents names no agents folder".
		{"serve agents is a file", []string{"serve", "--addr", "127.0.0.1:0", "--agents", file}, "--agents " + file + " is a file"},
		{"validate agents is a file", []string{"validate", "--agents", file}, "--agents " + file + " is a file"},
		{"eval agents is a file", []string{"eval", "--agents", file, "--dataset", "../../evals/testdata/datasets/no-route.yaml"}, "--agents " + file + " is a file"},
		{"serve agents empty", []string{"serve", "--addr", "127.0.0.1:0", "--agents", ""}, "--agents needs a folder"},
		{"validate agents empty", []string{"validate", "--agents", ""}, "--agents needs a folder"},
		{"eval agents empty", []string{"eval", "--agents", "", "--dataset", "../../evals/testdata/datasets/no-route.yaml"}, "--agents needs a folder"},
		// It failed once everything was built, saying "another process already listens there".
		{"serve metrics on the API address", []string{"serve", "--addr", "127.0.0.1:18123", "--metrics-addr", "127.0.0.1:18123"}, "--metrics-addr 127.0.0.1:18123 is --addr too"},
		{"serve metrics on the default dev address", []string{"serve", "--metrics-addr", "127.0.0.1:8080"}, "--metrics-addr 127.0.0.1:8080 is --addr too"},
		{"ccs-demo fixtures missing", []string{"ccs-demo", "--addr", "127.0.0.1:0", "--fixtures", filepath.Join(dir, "nope")}, "--fixtures " + filepath.Join(dir, "nope") + " is not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Cancelled, and with a store that writes no file: a command that wrongly accepts
			// its flags stops at once instead of serving.
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			environ := envMap(map[string]string{devSecretEnv: testSecret, "SWITCHBOARD_STORE_DRIVER": "memory"})
			var out, errOut bytes.Buffer
			if code := run(ctx, tc.args, &out, &errOut, environ); code != 2 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tc.args, code, errOut.String(), tc.want)
			}
		})
	}
}
