package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInferTurboFramework: the first framework of turbo's list whose
// dependencies match, all of them or one of them as each says.
func TestInferTurboFramework(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		deps []string
		want string // slug; "" for none
	}{
		{"none", nil, ""},
		{"unrelated", []string{"react", "lodash"}, ""},
		{"next", []string{"next", "react"}, "nextjs"},
		{"blitz comes before next", []string{"next", "blitz"}, "blitzjs"},
		{"vite", []string{"vite"}, "vite"},
		{"sveltekit before vite", []string{"vite", "@sveltejs/kit"}, "sveltekit"},
		{"all: solid-js alone is not solidstart", []string{"solid-js"}, ""},
		{"all: both", []string{"solid-js", "solid-start"}, "solidstart"},
		{"some: nuxt3 alone", []string{"nuxt3"}, "nuxtjs"},
		{"some: react-dev-utils alone", []string{"react-dev-utils"}, "create-react-app"},
		{"nitro before nuxt", []string{"nuxt", "nitropack"}, "nitro"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			has := map[string]bool{}
			for _, d := range tc.deps {
				has[d] = true
			}
			got := ""
			if f := InferTurboFramework(func(d string) bool { return has[d] }); f != nil {
				got = f.Slug
			}
			if got != tc.want {
				t.Errorf("InferTurboFramework(%q) = %q, want %q", tc.deps, got, tc.want)
			}
		})
	}
}

// TestTurboFrameworkPatterns: Next.js adds VERCEL_DEPLOYMENT_ID when skew
// protection is on ("1"), as turbo.
func TestTurboFrameworkPatterns(t *testing.T) {
	t.Parallel()
	next := InferTurboFramework(func(d string) bool { return d == "next" })
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{nil, []string{"NEXT_PUBLIC_*", "NEXT_DEPLOYMENT_ID"}},
		{map[string]string{"VERCEL_SKEW_PROTECTION_ENABLED": "0"}, []string{"NEXT_PUBLIC_*", "NEXT_DEPLOYMENT_ID"}},
		{map[string]string{"VERCEL_SKEW_PROTECTION_ENABLED": "1"}, []string{"NEXT_PUBLIC_*", "NEXT_DEPLOYMENT_ID", "VERCEL_DEPLOYMENT_ID"}},
	} {
		got := next.Patterns(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("env %v (-want +got):\n%s", tc.env, diff)
		}
	}
	// The list is turbo's: every pattern is one vx's passThrough takes.
	for _, f := range TurboFrameworks {
		for _, p := range append(f.Env, f.Include...) {
			if reason := checkPassThrough(p); reason != "" {
				t.Errorf("%s: %q: %s", f.Slug, p, reason)
			}
		}
	}
}

// TestAddInferredEnv: the patterns go in front of the passThrough of the
// project's tasks that have an entry, each in an entry of its own, from
// the same place; other projects and tasks without an entry are left
// alone.
func TestAddInferredEnv(t *testing.T) {
	t.Parallel()
	at := func(line int) Origin { return Origin{Path: "turbo.json", Line: line, Col: 5} }
	c := &Config{Path: "turbo.json",
		Tasks: map[string]Task{
			"build":      {PassThrough: []string{"NODE_ENV", "!NEXT_PUBLIC_SECRET"}, Outputs: []string{".next/**"}},
			"web#lint":   {PassThrough: []string{"ESLINT_*"}},
			"//#codegen": {},
		},
		Origins: map[string]Origin{"build": at(3), "web#lint": at(7), "//#codegen": at(9)},
	}
	c.AddInferredEnv("web", false, []string{"build", "dev", "lint"}, []string{"NEXT_PUBLIC_*"})
	c.AddInferredEnv("root", true, []string{"codegen"}, []string{"VITE_*"})
	want := map[string]Task{
		"build":      {PassThrough: []string{"NODE_ENV", "!NEXT_PUBLIC_SECRET"}, Outputs: []string{".next/**"}},
		"web#build":  {PassThrough: []string{"NEXT_PUBLIC_*", "NODE_ENV", "!NEXT_PUBLIC_SECRET"}, Outputs: []string{".next/**"}},
		"web#lint":   {PassThrough: []string{"NEXT_PUBLIC_*", "ESLINT_*"}},
		"//#codegen": {PassThrough: []string{"VITE_*"}},
	}
	if diff := cmp.Diff(want, c.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	wantAt := map[string]Origin{"build": at(3), "web#build": at(3), "web#lint": at(7), "//#codegen": at(9)}
	if diff := cmp.Diff(wantAt, c.Origins); diff != "" {
		t.Errorf("origins (-want +got):\n%s", diff)
	}
}
