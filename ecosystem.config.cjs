// pm2: `npm ci && pm2 start ecosystem.config.cjs` (fork mode, one process with every role); npm ci
// compiles dist/, the JavaScript bin/stratd.js runs.
// kill_timeout exceeds stratd's shutdown grace period (shutdown.graceMs, 15 s by default), so pm2
// never SIGKILLs a daemon that is still bringing in-flight actions to a persisted state.
// Logs under var/log grow without bound: `pm2 install pm2-logrotate` (docs/operations.md, pm2).
module.exports = {
  apps: [
    {
      name: 'stratd',
      script: 'bin/stratd.js',
      args: 'run',
      // The Node flags of every production start (bin/node-flags.js).
      node_args: ['--max-semi-space-size=4', '--heap-growing-percent=25'],
      exec_mode: 'fork',
      instances: 1,
      kill_timeout: 30000,
      listen_timeout: 20000,
      autorestart: true,
      max_restarts: 20,
      min_uptime: '30s',
      restart_delay: 2000,
      exp_backoff_restart_delay: 1000,
      max_memory_restart: '1G',
      out_file: 'var/log/stratd.out.log',
      error_file: 'var/log/stratd.err.log',
      merge_logs: true,
      time: false,
      env: {
        NODE_ENV: 'production',
        STRATD_MODE: 'paper',
      },
      env_live: {
        NODE_ENV: 'production',
        STRATD_MODE: 'live',
      },
    },
  ],
};
