import { spawn } from "node:child_process"
const child = spawn(process.execPath, ["packages/server/bin/postwire.js", "serve", "--port", "18993", "--host", "127.0.0.1", "--role", "api"], {
  env: { ...process.env, DATABASE_URL: "", POSTWIRE_DATA_DIR: "/tmp/pwdebug/d2" },
  stdio: ["ignore", "pipe", "pipe"],
  detached: true
})
child.stdout!.on("data", (c) => console.log("OUT", c.toString().slice(0, 200)))
child.stderr!.on("data", (c) => console.log("ERR", c.toString().slice(0, 500)))
child.on("exit", (code) => console.log("exit", code))
setTimeout(() => { process.kill(-child.pid!, "SIGTERM") }, 15000)
