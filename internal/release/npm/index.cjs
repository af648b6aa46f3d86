// defineConfig and defineProject return what they are given: they are there
// for the types (index.d.ts). See index.mjs.
"use strict";

exports.defineConfig = function defineConfig(config) {
  return config;
};

exports.defineProject = function defineProject(config) {
  return config;
};
