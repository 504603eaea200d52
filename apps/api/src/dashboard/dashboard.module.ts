import { Module } from '@nestjs/common';
import { DashboardController } from './dashboard.controller';

/** Serves the built account dashboard at /dashboard. */
@Module({ controllers: [DashboardController] })
export class DashboardModule {}
