// defineConfig and defineProject return what they are given: they are there
// for the types (index.d.ts). vx evaluates vx.config.ts with its own copy of
// this module, so the import works where the package is not installed.
export function defineConfig(config) {
  return config;
}

export function defineProject(config) {
  return config;
}
