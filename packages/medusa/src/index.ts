import { ModuleProvider, Modules } from '@medusajs/framework/utils';
import { PaydPaymentProviderService } from './service';

export { PaydPaymentProviderService } from './service';
export type { PaydProviderOptions } from './options';
export type { PaydSessionData } from './service';

export default ModuleProvider(Modules.PAYMENT, { services: [PaydPaymentProviderService] });
