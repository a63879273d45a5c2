import { type GetTreeSettingsResponse, TreeSettings } from '@leadflow/proto/leadflow/admin/v1/admin';
import { routingModes } from '@leadflow/service-kit/admin-enums';
import { msOfDuration } from '@leadflow/service-kit/proto-time';
import { fields } from '../format.js';
import { messageJson } from '../json-output.js';
import type { Command } from './command.js';

const FROM_DOCUMENT = '(buyers document)';

/** Where each setting in effect comes from, as `--json` names it. */
type Source = 'document' | 'environment' | 'learned';

function routingSource({ applied }: GetTreeSettingsResponse): Source {
  return applied?.routing ? 'document' : 'environment';
}

function pingWindowSource({ applied, effective }: GetTreeSettingsResponse): Source {
  if (!effective?.pingWindow) return 'learned';
  return applied?.pingWindow ? 'document' : 'environment';
}

function routingLine(response: GetTreeSettingsResponse): [string, string] {
  const routing = routingModes.nameOf(response.effective?.routing ?? 0) ?? '-';
  const source = routingSource(response) === 'document' ? FROM_DOCUMENT : '(LEADFLOW_ROUTING_MODE or its default)';
  return ['routing', `${routing}  ${source}`];
}

function windowLine(response: GetTreeSettingsResponse): [string, string] {
  const { effective } = response;
  if (!effective?.pingWindow) return ['ping window', "learned from the bidders' answer times"];
  const source = pingWindowSource(response) === 'document' ? FROM_DOCUMENT : '(LEADFLOW_PING_WINDOW_MS)';
  return ['ping window', `${msOfDuration(effective.pingWindow)} ms  ${source}`];
}

/** Where each setting in effect comes from; a tier's own window only ever from the document, left out without one. */
function sources(response: GetTreeSettingsResponse): Record<string, unknown> {
  return {
    routing: routingSource(response),
    pingWindow: pingWindowSource(response),
    tiers: (response.effective?.tiers ?? []).map(({ tier }) => ({ tier, pingWindow: 'document' as Source })),
  };
}

/**
 * `{applied, effective, sources}`: `applied` without the routing mode a document left out (rather than
 * ROUTING_MODE_UNSPECIFIED), and where each setting in effect comes from, as the text says.
 */
function treeJson(response: GetTreeSettingsResponse): unknown {
  const applied = messageJson(TreeSettings, response.applied ?? TreeSettings.create()) as Record<string, unknown>;
  if (!response.applied?.routing) delete applied.routing;
  return {
    applied,
    effective: messageJson(TreeSettings, response.effective ?? TreeSettings.create()),
    sources: sources(response),
  };
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
    'that answered. With --json, prints {"applied": ..., "effective": ..., "sources": ...}: applied holds only',
    'what the document set; sources says where each setting in effect comes from (document, environment, learned),',
    "a tier's own window in sources.tiers, as effective.tiers lists them.",
  ],
  options: {},
  positionals: [],
  parse: () => undefined,
  async run(calls) {
    const response = await calls.getTreeSettings();
    return {
      json: treeJson(response),
      text: fields([routingLine(response), windowLine(response), ...tierLines(response.effective)]),
    };
  },
};
