import type { PrismaClient } from '../database.js';
import { pageQuery, toPage } from '../pagination/list-query.js';
import type { ListRequest } from '../pagination/list-query.js';
import { suggestionView } from './suggestion-view.js';

export async function listSuggestions(prisma: PrismaClient, appId: number, request: ListRequest) {
  const { where, orderBy, take } = pageQuery(request);
  const rows = await prisma.suggestion.findMany({ where: { appId, ...where }, orderBy, take });
  return toPage(request, rows, suggestionView);
}
