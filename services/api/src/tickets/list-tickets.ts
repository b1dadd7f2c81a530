import type { PrismaClient } from '../database.js';
import { pageQuery, toPage } from '../pagination/list-query.js';
import type { ListRequest } from '../pagination/list-query.js';
import { ticketView } from './ticket-view.js';

export async function listTickets(prisma: PrismaClient, appId: number, request: ListRequest) {
  const { where, orderBy, take } = pageQuery(request);
  const rows = await prisma.ticket.findMany({ where: { appId, ...where }, orderBy, take });
  return toPage(request, rows, ticketView);
}
