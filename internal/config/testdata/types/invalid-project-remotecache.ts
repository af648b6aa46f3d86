// tsc: error TS2353: Object literal may only specify known properties, and 'remoteCache' does not exist in type 'ProjectConfig'.
import { defineProject } from "@vxrun/vx";

export default defineProject({ remoteCache: { url: "grpc://x:1" } });
