// The instanceName setting of config-schema.ts (a file of its own to keep that one short): the
// name a process's leases are held under (src/process/instance-identity.ts).
import { Type } from 'typebox';

export const InstanceNameSetting = Type.Optional(
  Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$',
    description:
      "This process's name in the leases it holds (callback events, funding outputs), the same after a restart, so that a restarted process takes its own leases back at once; one name per live process (a start whose name another live process holds is refused). Absent: the host and port (port 0: a random name per run, nothing taken back).",
  }),
);
