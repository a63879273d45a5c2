#!/usr/bin/env node
import { routeGrpcLogs } from '@leadflow/service-kit/grpc-logging';
import { createLogger } from '@leadflow/service-kit/logger';
import { runCli } from './run-cli.js';

// grpc-js's own lines (a header of the answer it cannot hold) as readable lines on stderr, naming headers only.
routeGrpcLogs(createLogger('leadflow', 'info', process.stderr, 'pretty'));

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
