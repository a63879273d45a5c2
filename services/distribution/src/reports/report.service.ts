import type { GetReportRequest, GetReportResponse } from '../../../../proto/generated/leadflow/admin/v1/admin.js';
import type { Db } from '../db/database.js';

export class ReportService {
  constructor(private readonly db: Db) {}

  async report(_request: GetReportRequest): Promise<GetReportResponse> {
    void this.db;
    throw new Error('reports are being built');
  }
}
