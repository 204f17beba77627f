// App Home's listeners (its Run and New schedule buttons are registered by run/ and schedules/).
import { ACTIONS } from '../kit/ids.ts';
import { action, event, type Registration } from '../kit/listen.ts';
import { appHomeOpened, homeRefreshClicked } from './events.ts';

export const homeListeners: readonly Registration[] = [
  event('app_home_opened', appHomeOpened),
  action({ action_id: ACTIONS.homeRefresh }, 'navigating', homeRefreshClicked),
];
