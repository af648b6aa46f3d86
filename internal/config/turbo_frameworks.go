package config

import "slices"

// TurboFramework is a framework turbo recognises in a package by its
// dependencies, and the variables it then adds to the package's tasks
// (turbo's "framework inference"): the framework builds them into its
// output (Next.js's NEXT_PUBLIC_*, Vite's VITE_*), so they belong in the
// key, and the task must see them.
type TurboFramework struct {
	Slug, Name string
	// Env are the variable patterns it adds.
	Env []string
	// Any: one of Deps makes the match; else all of them must be there.
	Any  bool
	Deps []string
	// If the variable IfKey has the value IfValue, Include are added too.
	IfKey, IfValue string
	Include        []string
}

// TurboFrameworks is turbo 2.11.13's list, in its order: the first whose
// dependencies match is the package's framework.
var TurboFrameworks = []TurboFramework{
	{Slug: "astro", Name: "Astro", Env: []string{"PUBLIC_*"}, Deps: []string{"astro"}},
	{Slug: "blitzjs", Name: "Blitz", Env: []string{"NEXT_PUBLIC_*"}, Deps: []string{"blitz"}},
	{Slug: "create-react-app", Name: "Create React App", Env: []string{"REACT_APP_*"}, Any: true, Deps: []string{"react-scripts", "react-dev-utils"}},
	{Slug: "expo", Name: "Expo", Env: []string{"EXPO_PUBLIC_*"}, Deps: []string{"expo"}},
	{Slug: "gatsby", Name: "Gatsby", Env: []string{"GATSBY_*"}, Deps: []string{"gatsby"}},
	{Slug: "nextjs", Name: "Next.js", Env: []string{"NEXT_PUBLIC_*", "NEXT_DEPLOYMENT_ID"}, Deps: []string{"next"},
		IfKey: "VERCEL_SKEW_PROTECTION_ENABLED", IfValue: "1", Include: []string{"VERCEL_DEPLOYMENT_ID"}},
	{Slug: "nitro", Name: "Nitro", Env: append([]string{"NITRO_*", "SERVER_*"}, hostVars...), Any: true,
		Deps: []string{"nitropack", "nitropack-nightly", "nitro", "nitro-nightly"}},
	{Slug: "nuxtjs", Name: "Nuxt.js", Env: append(append([]string{"NUXT_*", "NUXT_ENV_*", "NITRO_*", "SERVER_*"}, hostVars...), "LAUNCH_EDITOR"), Any: true,
		Deps: []string{"nuxt", "nuxt-edge", "nuxt3", "nuxt3-edge"}},
	{Slug: "redwoodjs", Name: "RedwoodJS", Env: []string{"REDWOOD_ENV_*"}, Deps: []string{"@redwoodjs/core"}},
	{Slug: "remix", Name: "Remix", Env: []string{"REMIX_*"}, Any: true, Deps: []string{"@remix-run/dev", "@remix-run/react", "@remix-run/serve"}},
	{Slug: "sanity", Name: "Sanity Studio", Env: []string{"SANITY_STUDIO_*"}, Deps: []string{"@sanity/cli"}},
	{Slug: "solidstart", Name: "Solid", Env: []string{"VITE_*"}, Deps: []string{"solid-js", "solid-start"}},
	{Slug: "sveltekit", Name: "SvelteKit", Env: []string{"VITE_*", "PUBLIC_*"}, Deps: []string{"@sveltejs/kit"}},
	{Slug: "vite", Name: "Vite", Env: []string{"VITE_*"}, Deps: []string{"vite"}},
	{Slug: "vue", Name: "Vue", Env: []string{"VUE_APP_*", "LAUNCH_EDITOR"}, Deps: []string{"@vue/cli-service"}},
}

// hostVars are the hosting platforms' variables Nitro (and so Nuxt) reads.
var hostVars = []string{"AWS_APP_ID", "INPUT_AZURE_STATIC_WEB_APPS_API_TOKEN", "CLEAVR", "CF_PAGES",
	"FIREBASE_APP_HOSTING", "NETLIFY", "STORMKIT", "NOW_BUILDER", "ZEABUR", "RENDER"}

// InferTurboFramework is the framework of a package whose dependencies
// has reports, as turbo infers it: the first of [TurboFrameworks] that
// matches; nil for none.
func InferTurboFramework(has func(dep string) bool) *TurboFramework {
	for i := range TurboFrameworks {
		f := &TurboFrameworks[i]
		match := !f.Any
		for _, d := range f.Deps {
			if f.Any {
				match = match || has(d)
			} else {
				match = match && has(d)
			}
		}
		if match {
			return f
		}
	}
	return nil
}

// Patterns are the variable patterns f adds, given the environment vx
// runs in (lookup), which decides the conditional ones.
func (f *TurboFramework) Patterns(lookup func(name string) (string, bool)) []string {
	out := slices.Clone(f.Env)
	if f.IfKey != "" {
		if v, ok := lookup(f.IfKey); ok && v == f.IfValue {
			out = append(out, f.Include...)
		}
	}
	return out
}

// AddInferredEnv adds patterns in front of the passThrough of the tasks
// of a project (its name; root: the workspace root's) that have an entry:
// each gets an entry of its own, "<project>#<task>", made from the one
// that applied, in the same place. Tasks without an entry are left alone,
// as turbo runs no task turbo.json does not declare.
func (c *Config) AddInferredEnv(project string, root bool, tasks []string, patterns []string) {
	if c == nil || len(patterns) == 0 {
		return
	}
	for _, task := range tasks {
		name := project
		if root {
			if _, ok := c.Tasks[project+"#"+task]; !ok {
				if _, ok := c.Tasks["//#"+task]; ok {
					name = "//"
				}
			}
		}
		key := name + "#" + task
		t, ok := c.Tasks[key]
		origin := c.Origins[key]
		if !ok {
			if t, ok = c.Tasks[task]; !ok {
				continue
			}
			origin = c.Origins[task]
		}
		t.PassThrough = append(slices.Clone(patterns), t.PassThrough...)
		if c.Origins == nil {
			c.Origins = map[string]Origin{}
		}
		c.Tasks[key] = t
		c.Origins[key] = origin
	}
}
