import { GetTreeSettingsResponse, type TreeSettings } from '@leadflow/proto/leadflow/admin/v1/admin';
import { routingModes } from '@leadflow/service-kit/admin-enums';
import { msOfDuration } from '@leadflow/service-kit/proto-time';
import { fields } from '../format.js';
import type { Command } from './command.js';

const FROM_DOCUMENT = '(buyers document)';

function routingLine({ applied, effective }: GetTreeSettingsResponse): [string, string] {
  const routing = routingModes.nameOf(effective?.routing ?? 0) ?? '-';
  return ['routing', `${routing}  ${applied?.routing ? FROM_DOCUMENT : '(LEADFLOW_ROUTING_MODE or its default)'}`];
}

function windowLine({ applied, effective }: GetTreeSettingsResponse): [string, string] {
  if (!effective?.pingWindow) return ['ping window', "learned from the bidders' answer times"];
  const source = applied?.pingWindow ? FROM_DOCUMENT : '(LEADFLOW_PING_WINDOW_MS)';
  return ['ping window', `${msOfDuration(effective.pingWindow)} ms  ${source}`];
}

function tierLines(settings: TreeSettings | undefined): [string, string][] {
  return (settings?.tiers ?? []).map(({ tier, pingWindow }) => [
    `tier ${tier}`,
    `ping window ${msOfDuration(pingWindow)} ms  ${FROM_DOCUMENT}`,
  ]);
}

export const tree: Command<void> = {
  group: 'buyer',
  name: 'tree',
  synopsis: '',
  summary: "show the ping tree's routing mode and ping windows, and where each comes from",
  details: [
    'A buyers document\'s `tree` key sets them (docs/buyer-file.md, "Timing and routing"); what it leaves',
    "out is the service's environment (LEADFLOW_ROUTING_MODE, LEADFLOW_PING_WINDOW_MS), and a window set",
    "nowhere is learned from the bidders' answer times. The effective settings are those of the instance",
    'that answered. With --json, prints {"applied": ..., "effective": ...}.',
  ],
  options: {},
  positionals: [],
  parse: () => undefined,
  async run(calls) {
    const response = await calls.getTreeSettings();
    return {
      json: GetTreeSettingsResponse.toJSON(response),
      text: fields([routingLine(response), windowLine(response), ...tierLines(response.effective)]),
    };
  },
};
